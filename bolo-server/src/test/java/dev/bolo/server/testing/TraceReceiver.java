package dev.bolo.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okio.Buffer;

/**
 * An OpenTelemetry collector on loopback, as far as a test needs one: it takes OTLP/HTTP with
 * protobuf at {@code /v1/traces} (the protocol's own messages, decoded by {@code
 * opentelemetry-proto}), keeps every span with its resource, and answers as a collector does. Point
 * a gateway at it with {@code OTEL_EXPORTER_OTLP_ENDPOINT=}{@link #endpoint()}. Thread safe.
 */
public final class TraceReceiver implements AutoCloseable {

  private static final HexFormat HEX = HexFormat.of();

  private final MockWebServer server = new MockWebServer();
  private final List<Received> spans = new CopyOnWriteArrayList<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();

  /** One span as received, with the attributes of the resource that sent it. */
  public record Received(Span span, Map<String, String> resource) {

    public String name() {
      return span.getName();
    }

    public String traceId() {
      return HEX.formatHex(span.getTraceId().toByteArray());
    }

    public String spanId() {
      return HEX.formatHex(span.getSpanId().toByteArray());
    }

    /** The parent's span id, empty for a root span. */
    public String parentId() {
      return HEX.formatHex(span.getParentSpanId().toByteArray());
    }

    /** The span ids this span links to. */
    public List<String> linkedSpanIds() {
      return span.getLinksList().stream()
          .map(link -> HEX.formatHex(link.getSpanId().toByteArray()))
          .toList();
    }

    /** The trace ids of the spans this span links to, in the order of {@link #linkedSpanIds}. */
    public List<String> linkedTraceIds() {
      return span.getLinksList().stream()
          .map(link -> HEX.formatHex(link.getTraceId().toByteArray()))
          .toList();
    }

    /** The attribute's value as text, or empty when the span has none of that name. */
    public Optional<String> attribute(String key) {
      return span.getAttributesList().stream()
          .filter(kv -> kv.getKey().equals(key))
          .map(kv -> text(kv.getValue()))
          .findFirst();
    }

    /** Every attribute of the span and of its events, each as {@code key=value} text. */
    public List<String> allAttributes() {
      List<String> all = new ArrayList<>();
      span.getAttributesList().forEach(kv -> all.add(kv.getKey() + "=" + text(kv.getValue())));
      span.getEventsList()
          .forEach(
              event ->
                  event
                      .getAttributesList()
                      .forEach(kv -> all.add(kv.getKey() + "=" + text(kv.getValue()))));
      return all;
    }

    /** The attribute of the span's first event named {@code event}, as text, or empty. */
    public Optional<String> eventAttribute(String event, String key) {
      return span.getEventsList().stream()
          .filter(e -> e.getName().equals(event))
          .findFirst()
          .flatMap(
              e ->
                  e.getAttributesList().stream()
                      .filter(kv -> kv.getKey().equals(key))
                      .map(kv -> text(kv.getValue()))
                      .findFirst());
    }

    /** The names of the span's events, in order. */
    public List<String> events() {
      return span.getEventsList().stream().map(Span.Event::getName).toList();
    }
  }

  public TraceReceiver() throws IOException {
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            return receive(request);
          }
        });
    server.start();
  }

  private MockResponse receive(RecordedRequest request) {
    if (!"/v1/traces".equals(request.getUrl().encodedPath())
        || !"application/x-protobuf".equals(request.getHeaders().get("Content-Type"))) {
      refused.add(request.getMethod() + " " + request.getUrl());
      return new MockResponse.Builder().code(404).build();
    }
    ExportTraceServiceRequest export;
    try {
      export =
          ExportTraceServiceRequest.parseFrom(
              request.getBody() == null ? new byte[0] : request.getBody().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      refused.add("undecodable: " + e.getMessage());
      return new MockResponse.Builder().code(400).build();
    }
    for (ResourceSpans resourceSpans : export.getResourceSpansList()) {
      Map<String, String> resource = attributes(resourceSpans.getResource());
      for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
        scope.getSpansList().forEach(span -> spans.add(new Received(span, resource)));
      }
    }
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/x-protobuf")
        .body(new Buffer().write(ExportTraceServiceResponse.getDefaultInstance().toByteArray()))
        .build();
  }

  /** The base address for {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Every span received so far. */
  public List<Received> spans() {
    return List.copyOf(spans);
  }

  /** The spans received so far of the trace {@code traceId}. */
  public List<Received> trace(String traceId) {
    return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
  }

  /**
   * Checks that no attribute of any of {@code spans} (of the span or its events) names a device's
   * token, a transcript ({@code transcript of}, the fake providers' text), the audio (a WAV's
   * {@code RIFF}) or any of {@code secrets} (the test's device names, keys, webhook secrets), and
   * that each stays short: the privacy rule of docs/operations/tracing.md.
   */
  public static void assertNothingPrivate(List<Received> spans, String... secrets) {
    assertThat(spans).as("spans to check").isNotEmpty();
    List<String> forbidden = new ArrayList<>(List.of(secrets));
    forbidden.addAll(List.of(Gateway.TOKEN_A, Gateway.TOKEN_B, "transcript of", "RIFF"));
    for (Received span : spans) {
      for (String attribute : span.allAttributes()) {
        assertThat(attribute).as(span.name()).hasSizeLessThan(200);
        for (String secret : forbidden) {
          assertThat(attribute).as(span.name()).doesNotContain(secret);
        }
      }
    }
  }

  /** What was sent that was not OTLP/HTTP protobuf spans; empty when all was. */
  public List<String> refused() {
    return List.copyOf(refused);
  }

  private static Map<String, String> attributes(Resource resource) {
    return resource.getAttributesList().stream()
        .collect(Collectors.toMap(KeyValue::getKey, kv -> text(kv.getValue()), (a, b) -> b));
  }

  private static String text(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case INT_VALUE -> Long.toString(value.getIntValue());
      case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
      case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
      case BYTES_VALUE -> HEX.formatHex(value.getBytesValue().toByteArray());
      default -> value.toString();
    };
  }

  @Override
  public void close() {
    server.close();
  }

  /**
   * A duplicate storm's resolution spans: the one that owned the work, and the copies that joined.
   */
  public record Resolved(Received owner, List<Received> joined) {}

  /**
   * Checks that exactly one of {@code resolutions} owned the work and that every other joined it
   * with one link, to the owner's span in the owner's trace.
   */
  public static Resolved assertOneOwnerLinkedByTheRest(List<Received> resolutions) {
    List<Received> owners =
        resolutions.stream()
            .filter(r -> r.attribute("bolo.resolution").orElseThrow().equals("owner"))
            .toList();
    assertThat(owners).hasSize(1);
    Received owner = owners.get(0);
    List<Received> joined = new ArrayList<>(resolutions);
    joined.remove(owner);
    assertThat(joined)
        .allSatisfy(
            copy -> {
              assertThat(copy.attribute("bolo.resolution")).hasValue("joined");
              assertThat(copy.linkedSpanIds()).containsExactly(owner.spanId());
              assertThat(copy.linkedTraceIds()).containsExactly(owner.traceId());
            });
    return new Resolved(owner, joined);
  }
}
