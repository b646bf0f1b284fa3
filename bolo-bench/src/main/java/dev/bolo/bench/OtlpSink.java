package dev.bolo.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * A collector that keeps nothing, for {@link TracingOverhead}: OTLP/HTTP with protobuf at {@code
 * /v1/traces} on loopback, each request decoded ({@code opentelemetry-proto}, as a collector would)
 * and its spans counted by the sending service and the span's name, then thrown away; it answers as
 * a collector does. What it counted proves the traced gateway sent its spans, and how many per
 * note. Thread safe.
 */
final class OtlpSink implements AutoCloseable {

  private final HttpServer server;

  /** The start of the names of the sink's threads. */
  static final String THREAD = "otlp-sink-";

  private final ExecutorService threads =
      Executors.newFixedThreadPool(2, Thread.ofPlatform().name(THREAD, 0).factory());
  private final Map<String, LongAdder> spans = new ConcurrentHashMap<>();
  private final LongAdder exports = new LongAdder();
  private final LongAdder refused = new LongAdder();

  private OtlpSink(HttpServer server) {
    this.server = server;
  }

  /** A sink listening on a free port of 127.0.0.1. */
  static OtlpSink start() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    OtlpSink sink = new OtlpSink(server);
    server.createContext("/", sink::receive);
    server.setExecutor(sink.threads);
    server.start();
    return sink;
  }

  /** The base address for {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void receive(HttpExchange exchange) throws IOException {
    try (exchange;
        InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readAllBytes();
      if (!exchange.getRequestURI().getPath().equals("/v1/traces")
          || !"application/x-protobuf"
              .equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
        refused.increment();
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      ExportTraceServiceRequest export;
      try {
        export = ExportTraceServiceRequest.parseFrom(body);
      } catch (InvalidProtocolBufferException e) {
        refused.increment();
        exchange.sendResponseHeaders(400, -1);
        return;
      }
      exports.increment();
      for (ResourceSpans resourceSpans : export.getResourceSpansList()) {
        String service = serviceName(resourceSpans);
        for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            spans.computeIfAbsent(service + " " + span.getName(), k -> new LongAdder()).increment();
          }
        }
      }
      byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    }
  }

  private static String serviceName(ResourceSpans resourceSpans) {
    return resourceSpans.getResource().getAttributesList().stream()
        .filter(kv -> kv.getKey().equals("service.name"))
        .map(KeyValue::getValue)
        .map(value -> value.getStringValue())
        .findFirst()
        .orElse("(no service)");
  }

  /** Spans received so far, by {@code "SERVICE NAME"}, sorted. */
  Map<String, Long> spans() {
    Map<String, Long> counts = new TreeMap<>();
    spans.forEach((name, count) -> counts.put(name, count.sum()));
    return counts;
  }

  /** The spans received so far from one service. */
  long spansOf(String service) {
    return spans().entrySet().stream()
        .filter(e -> e.getKey().startsWith(service + " "))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** The export requests decoded so far. */
  long exports() {
    return exports.sum();
  }

  /** Requests that were not OTLP/HTTP protobuf spans. */
  long refused() {
    return refused.sum();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
