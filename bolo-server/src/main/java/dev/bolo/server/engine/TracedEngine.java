package dev.bolo.server.engine;

import dev.bolo.server.health.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.List;
import java.util.Objects;

/**
 * One span per call to the engine it wraps, an {@code engine attempt}: which engine (the target's
 * name, as {@code BOLO_ENGINES} names it, or the one engine's), the model asked and the outcome.
 * Each target of a route is wrapped alone, so a note that fails over shows one attempt per target
 * tried. Nothing of the note (audio, text) goes on the span. The composition root wraps only when
 * traces are on. Thread safe as the engine it wraps.
 */
public final class TracedEngine implements SpeechEngine {

  static final AttributeKey<String> TARGET = AttributeKey.stringKey("bolo.engine.target");
  static final AttributeKey<String> MODEL = AttributeKey.stringKey("bolo.engine.model");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("bolo.engine.outcome");

  private final SpeechEngine engine;
  private final String target;
  private final Tracer tracer;

  private TracedEngine(SpeechEngine engine, String target, Tracer tracer) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.target = Objects.requireNonNull(target, "target");
    this.tracer = Objects.requireNonNull(tracer, "tracer");
  }

  /** {@code engine}, each of its calls a span named by {@code target}. */
  public static SpeechEngine of(SpeechEngine engine, String target, Tracer tracer) {
    return new TracedEngine(engine, target, tracer);
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    Span span =
        tracer
            .spanBuilder("engine attempt")
            .setAttribute(TARGET, target)
            .setAttribute(MODEL, request.settings().model())
            .startSpan();
    try (Scope scope = span.makeCurrent()) {
      EngineResult result = engine.transcribe(request);
      span.setAttribute(OUTCOME, outcomeOf(result));
      if (result instanceof EngineResult.Failure) {
        span.setStatus(StatusCode.ERROR);
      }
      return result;
    } catch (RuntimeException | Error e) {
      // A bug's type, not its message: a message may quote what the provider answered.
      span.setAttribute(OUTCOME, "bug");
      span.setStatus(StatusCode.ERROR, e.getClass().getName());
      throw e;
    } finally {
      span.end();
    }
  }

  /** The outcome's name on the span: the kind of result, never its message. */
  public static String outcomeOf(EngineResult result) {
    return switch (result) {
      case EngineResult.Transcribed t -> "transcribed";
      case EngineResult.Rejected r -> "rejected";
      case EngineResult.InvalidAudio i -> "invalid_audio";
      case EngineResult.UnsupportedAudio u -> "unsupported_audio";
      case EngineResult.Unavailable u -> "unavailable";
      case EngineResult.Saturated s -> "saturated";
      case EngineResult.Failed f -> "failed";
      case EngineResult.TimedOut t -> "timed_out";
    };
  }

  @Override
  public String name() {
    return engine.name();
  }

  @Override
  public String defaultModel() {
    return engine.defaultModel();
  }

  @Override
  public boolean canTranslate() {
    return engine.canTranslate();
  }

  @Override
  public String source(String model) {
    return engine.source(model);
  }

  @Override
  public boolean timesWords(String model) {
    return engine.timesWords(model);
  }

  @Override
  public List<String> languages() {
    return engine.languages();
  }

  @Override
  public EngineLimits limits(String model) {
    return engine.limits(model);
  }

  @Override
  public LongestNote longestNote(String model) {
    return engine.longestNote(model);
  }

  @Override
  public ResponseFormat richestFormat(String model) {
    return engine.richestFormat(model);
  }

  @Override
  public Readiness readiness() {
    return engine.readiness();
  }

  @Override
  public void bindMetrics(MeterRegistry registry) {
    engine.bindMetrics(registry);
  }

  @Override
  public void close() {
    engine.close();
  }
}
