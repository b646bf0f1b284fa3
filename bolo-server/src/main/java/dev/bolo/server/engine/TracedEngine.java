package dev.bolo.server.engine;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.Objects;

/**
 * One span per call to the engine it wraps, an {@code engine attempt}: which engine (the target's
 * name, as {@code BOLO_ENGINES} names it, or the one engine's), the model asked and the outcome.
 * Each target of a route is wrapped alone, so a note that fails over shows one attempt per target
 * tried. Nothing of the note (audio, text) goes on the span. The composition root wraps only when
 * traces are on. Thread safe as the engine it wraps.
 */
public final class TracedEngine extends ForwardingEngine {

  static final AttributeKey<String> TARGET = AttributeKey.stringKey("bolo.engine.target");
  static final AttributeKey<String> MODEL = AttributeKey.stringKey("bolo.engine.model");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("bolo.engine.outcome");

  private final String target;
  private final Tracer tracer;

  private TracedEngine(SpeechEngine engine, String target, Tracer tracer) {
    super(engine);
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
}
