package dev.bolo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The overhead benchmark's collector decodes OTLP/HTTP and counts spans by service and name. */
class OtlpSinkTest {

  @Test
  void countsTheSpansOfEachExportAndRefusesWhatIsNotOtlp() throws Exception {
    ExportTraceServiceRequest export =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(
                        Resource.newBuilder()
                            .addAttributes(
                                KeyValue.newBuilder()
                                    .setKey("service.name")
                                    .setValue(AnyValue.newBuilder().setStringValue("traced"))))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .addSpans(Span.newBuilder().setName("charge"))
                            .addSpans(Span.newBuilder().setName("charge"))
                            .addSpans(Span.newBuilder().setName("read upload"))))
            .build();
    HttpClient http = HttpClient.newHttpClient();
    try (OtlpSink sink = OtlpSink.start()) {
      HttpResponse<byte[]> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(sink.endpoint() + "/v1/traces"))
                  .header("Content-Type", "application/x-protobuf")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(export.toByteArray()))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      HttpResponse<byte[]> json =
          http.send(
              HttpRequest.newBuilder(URI.create(sink.endpoint() + "/v1/traces"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());

      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(json.statusCode()).isEqualTo(404);
      assertThat(sink.spans()).isEqualTo(Map.of("traced charge", 2L, "traced read upload", 1L));
      assertThat(sink.spansOf("traced")).isEqualTo(3);
      assertThat(sink.spansOf("unsampled")).isZero();
      assertThat(sink.exports()).isEqualTo(1);
      assertThat(sink.refused()).isEqualTo(1);
    }
  }
}
