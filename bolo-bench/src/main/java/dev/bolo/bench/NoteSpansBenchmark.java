package dev.bolo.bench;

import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.tracing.NoteSpans;
import dev.bolo.server.tracing.Tracing;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What one note's spans cost the threads that serve it: one operation makes the five spans the
 * gateway makes for a note it runs (the request, the upload's reading, the work key's resolution,
 * the engine attempt, the provider's call with its {@code traceparent} written into the call's
 * headers) and the charge's event, with their names, kinds, parents and attributes, and the scopes
 * the gateway enters; {@link NoteSpans} makes the ones it makes in the gateway. The SDK is the
 * gateway's own ({@link Tracing#configure}), its batch span processor exporting to a collector on
 * loopback ({@link OtlpSink}) on its own thread, whose work {@link SpanExportBenchmark} measures.
 *
 * <p>{@code traces}: {@code off} (no {@code OTEL_*} variable: the no-op API), {@code unsampled}
 * ({@code OTEL_TRACES_SAMPLER=always_off}), {@code on} (every note sampled).
 */
public class NoteSpansBenchmark extends OneCoreBenchmark {

  private static final AttributeKey<String> TARGET = AttributeKey.stringKey("bolo.engine.target");
  private static final AttributeKey<String> MODEL = AttributeKey.stringKey("bolo.engine.model");
  private static final AttributeKey<String> BREAKER = AttributeKey.stringKey("bolo.engine.breaker");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("bolo.engine.outcome");

  /** A note's audio hash before the note's number (16 digits), and its settings' fingerprint. */
  private static final String AUDIO = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c";

  private static final String SETTINGS = "a".repeat(64);

  @Param({"off", "unsampled", "on"})
  public String traces = "on";

  /** More {@code OTEL_*} variables for {@code on} and {@code unsampled} ({@link ExportCost}). */
  public Map<String, String> more = Map.of();

  private @Nullable OtlpSink sink;
  private Tracing tracing = Tracing.off();
  private Tracer tracer = Tracing.off().tracer();
  private TextMapPropagator propagator = TextMapPropagator.noop();
  private final Map<String, String> clientHeaders = Map.of();
  private long notes;

  @Setup(Level.Trial)
  public void start() throws Exception {
    OtlpSink started = OtlpSink.start();
    sink = started;
    Map<String, String> variables =
        switch (traces) {
          case "off" -> Map.of();
          case "unsampled" ->
              Map.of(
                  "OTEL_EXPORTER_OTLP_ENDPOINT",
                  started.endpoint(),
                  "OTEL_TRACES_SAMPLER",
                  "always_off");
          case "on" -> Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", started.endpoint());
          default -> throw new IllegalArgumentException("traces: off, unsampled or on");
        };
    if (!variables.isEmpty()) {
      Map<String, String> all = new HashMap<>(variables);
      all.putAll(more);
      variables = all;
    }
    tracing = Tracing.configure(variables);
    tracer = tracing.tracer();
    propagator = tracing.propagator();
  }

  /** The exports this state's collector received so far ({@link ExportCost}). */
  public long exports() {
    return sink == null ? 0 : sink.exports();
  }

  /** The spans this state's collector received so far ({@link ExportCost}). */
  public long spans() {
    return sink == null ? 0 : sink.spans().values().stream().mapToLong(Long::longValue).sum();
  }

  @TearDown(Level.Trial)
  public void stop() {
    tracing.close();
    if (sink != null) {
      sink.close();
    }
  }

  /** One note's spans, as the gateway makes them for a note whose work it runs. */
  @Benchmark
  public void note(Blackhole hole) {
    notes++;
    // The request: its parent read from the client's headers, as the gateway's wrapper does.
    Context parent =
        Context.root()
            .with(
                Span.fromContext(propagator.extract(Context.root(), clientHeaders, JobSpans.MAP)));
    Span request =
        tracer
            .spanBuilder("POST")
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, "POST")
            .setAttribute(UrlAttributes.URL_SCHEME, "http")
            .startSpan();
    Context context = NoteSpans.carry(parent.with(request), tracer);
    try (Scope inRequest = NoteSpans.enter(context)) {
      Span reading = NoteSpans.start("read upload");
      reading.setAttribute(NoteSpans.AUDIO_BYTES, 204_800L);
      reading.end();
      Span resolving =
          NoteSpans.resolving(
              new WorkKey("bench", SETTINGS, AUDIO + HexFormat.of().toHexDigits(notes)));
      try (Scope inResolution = NoteSpans.enter(resolving)) {
        Span attempt =
            tracer
                .spanBuilder("engine attempt")
                .setAttribute(TARGET, "openai")
                .setAttribute(MODEL, "whisper-1")
                .setAttribute(BREAKER, "closed")
                .startSpan();
        try (Scope inAttempt = NoteSpans.enter(attempt)) {
          Span call =
              tracer
                  .spanBuilder("POST")
                  .setSpanKind(SpanKind.CLIENT)
                  .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, "POST")
                  .setAttribute(ServerAttributes.SERVER_ADDRESS, "127.0.0.1")
                  .setAttribute(ServerAttributes.SERVER_PORT, 8089L)
                  .setAttribute(
                      UrlAttributes.URL_FULL, "http://127.0.0.1:8089/v1/audio/transcriptions")
                  .startSpan();
          try (Scope inCall = call.makeCurrent()) {
            Map<String, String> providerHeaders = new HashMap<>();
            propagator.inject(Context.current(), providerHeaders, JobSpans.PUT);
            hole.consume(providerHeaders);
            call.setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, 200L);
          } finally {
            call.end();
          }
          attempt.setAttribute(OUTCOME, "success");
        } finally {
          attempt.end();
        }
        hole.consume(notes);
        NoteSpans.charged(6_400);
      } finally {
        NoteSpans.resolved(resolving, Replay.NONE);
      }
    } finally {
      request.updateName("POST /v1/audio/transcriptions");
      request.setAttribute(HttpAttributes.HTTP_ROUTE, "/v1/audio/transcriptions");
      request.setAttribute(UrlAttributes.URL_PATH, "/v1/audio/transcriptions");
      request.setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, 200L);
      request.setAttribute(NoteSpans.REQUEST_ID, "req_" + notes);
      request.end();
    }
  }
}
