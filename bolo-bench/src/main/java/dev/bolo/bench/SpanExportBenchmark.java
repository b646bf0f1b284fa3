package dev.bolo.bench;

import dev.bolo.server.testing.KeptSpans;
import dev.bolo.server.tracing.NoteSpans;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.internal.otlp.traces.LowAllocationTraceRequestMarshaler;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the export costs per note, on the batch span processor's thread: one operation writes a
 * batch of 510 finished spans (102 notes of five, with the gateway's names and attributes, the
 * charge an event on the resolution's) as the OTLP request body, with the marshaler the SDK's OTLP
 * exporter uses by default (its reusable, low-allocation one). Divide by 102 for a note. Sending
 * the body is one HTTP request per batch.
 */
public class SpanExportBenchmark extends OneCoreBenchmark {

  /** Notes in one batch: the batch span processor sends at most 512 spans at once. */
  static final int NOTES = 102;

  private final LowAllocationTraceRequestMarshaler marshaler =
      new LowAllocationTraceRequestMarshaler();
  private List<SpanData> batch = List.of();

  @Setup(Level.Trial)
  public void record() {
    KeptSpans keep = new KeptSpans();
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault().merge(Resource.builder().put("service.name", "bolo").build()))
            .addSpanProcessor(SimpleSpanProcessor.create(keep))
            .build()) {
      Tracer tracer = provider.get("dev.bolo.server");
      for (int note = 0; note < NOTES; note++) {
        var request =
            tracer
                .spanBuilder("POST /v1/audio/transcriptions")
                .setSpanKind(SpanKind.SERVER)
                .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, "POST")
                .setAttribute(UrlAttributes.URL_SCHEME, "http")
                .setAttribute(HttpAttributes.HTTP_ROUTE, "/v1/audio/transcriptions")
                .setAttribute(UrlAttributes.URL_PATH, "/v1/audio/transcriptions")
                .setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, 200L)
                .setAttribute(NoteSpans.REQUEST_ID, "req_01JEXAMPLE" + note)
                .startSpan();
        var parent = io.opentelemetry.context.Context.root().with(request);
        tracer
            .spanBuilder("read upload")
            .setParent(parent)
            .setAttribute(NoteSpans.AUDIO_BYTES, 204_800L)
            .startSpan()
            .end();
        var resolving =
            tracer
                .spanBuilder("resolve work key")
                .setParent(parent)
                .setAttribute(NoteSpans.WORK_KEY, "3f9a0c1b2d4e")
                .setAttribute(NoteSpans.RESOLUTION, "owner")
                .startSpan();
        var inResolution = parent.with(resolving);
        var attempt =
            tracer
                .spanBuilder("engine attempt")
                .setParent(inResolution)
                .setAttribute("bolo.engine.target", "openai")
                .setAttribute("bolo.engine.model", "whisper-1")
                .setAttribute("bolo.engine.breaker", "closed")
                .setAttribute("bolo.engine.outcome", "success")
                .startSpan();
        tracer
            .spanBuilder("POST")
            .setParent(inResolution.with(attempt))
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, "POST")
            .setAttribute("server.address", "api.openai.com")
            .setAttribute("server.port", 443L)
            .setAttribute(UrlAttributes.URL_FULL, "https://api.openai.com/v1/audio/transcriptions")
            .setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, 200L)
            .startSpan()
            .end();
        attempt.end();
        resolving.addEvent(
            NoteSpans.CHARGE,
            io.opentelemetry.api.common.Attributes.of(NoteSpans.CHARGED_MS, 6_400L));
        resolving.end();
        request.end();
      }
    }
    batch = keep.spans();
  }

  /** One batch of 102 notes' spans written as the OTLP/HTTP request's protobuf body. */
  @Benchmark
  public void batchOf102Notes(Blackhole hole) throws IOException {
    marshaler.initialize(batch);
    try {
      hole.consume(marshaler.getBinarySerializedSize());
      marshaler.writeBinaryTo(OutputStream.nullOutputStream());
    } finally {
      marshaler.reset();
    }
  }
}
