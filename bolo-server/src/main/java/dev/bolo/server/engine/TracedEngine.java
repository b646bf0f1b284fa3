package dev.bolo.server.engine;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One span per call to the engine it wraps, an {@code engine attempt}: which engine (the target's
 * name, as {@code BOLO_ENGINES} names it, or the one engine's), the model asked, the outcome, and
 * what its callers know of the attempt: the state of the route's circuit breaker as the attempt
 * starts ({@link #underBreaker}) and the piece of a long note it sends ({@link #forPiece}). Each
 * target of a route is wrapped alone, so a note that fails over shows one attempt per target tried.
 * While the attempt runs its span is current, its ids in the log lines of the thread that runs it.
 * Nothing of the note (audio, text) goes on the span; a note whose trace is not sampled makes none
 * ({@link #unsampled}). The composition root wraps only when traces are on. Thread safe as the
 * engine it wraps.
 */
public final class TracedEngine extends ForwardingEngine {

  static final AttributeKey<String> TARGET = AttributeKey.stringKey("bolo.engine.target");
  static final AttributeKey<String> MODEL = AttributeKey.stringKey("bolo.engine.model");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("bolo.engine.outcome");

  /** The route's breaker of the target as the attempt starts: resilience4j's state, lowercase. */
  static final AttributeKey<String> BREAKER = AttributeKey.stringKey("bolo.engine.breaker");

  /** The piece of a long note an attempt sends, from 0 in the note's order. */
  static final AttributeKey<Long> PIECE_INDEX = AttributeKey.longKey("bolo.piece.index");

  /** How many pieces a long note was sent in, on the span of its work. */
  public static final AttributeKey<Long> PIECE_COUNT = AttributeKey.longKey("bolo.piece.count");

  private static final ContextKey<String> BREAKER_STATE = ContextKey.named("bolo.engine.breaker");
  private static final ContextKey<Long> PIECE = ContextKey.named("bolo.piece.index");

  private final String target;
  private final Tracer tracer;
  private final Function<Span, Scope> enter;

  private TracedEngine(
      SpeechEngine engine, String target, Tracer tracer, Function<Span, Scope> enter) {
    super(engine);
    this.target = Objects.requireNonNull(target, "target");
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.enter = Objects.requireNonNull(enter, "enter");
  }

  /**
   * {@code engine}, each of its calls a span named by {@code target}.
   *
   * @param enter makes an attempt's span current on the calling thread, its ids in the log lines,
   *     until the scope closes
   */
  public static SpeechEngine of(
      SpeechEngine engine, String target, Tracer tracer, Function<Span, Scope> enter) {
    return new TracedEngine(engine, target, tracer, enter);
  }

  /**
   * Tells the attempts made on this thread until the scope closes that the route's breaker of their
   * target is in {@code state}; nothing when the work is untraced or not sampled.
   */
  public static Scope underBreaker(CircuitBreaker.State state) {
    return within(BREAKER_STATE, state.name().toLowerCase(Locale.ROOT));
  }

  /**
   * Tells the attempts made on this thread until the scope closes that they send the piece {@code
   * index} (from 0) of a long note; nothing when the work is untraced or not sampled.
   */
  public static Scope forPiece(int index) {
    return within(PIECE, (long) index);
  }

  @SuppressWarnings("MustBeClosedChecker") // Handed to the caller, who closes it.
  private static <T> Scope within(ContextKey<T> key, T value) {
    // Untraced or unsampled work carries nothing: no context is made for a span that is not made.
    Span current = Span.current();
    if (!current.getSpanContext().isValid() || unsampled(current)) {
      return Scope.noop();
    }
    return Context.current().with(key, value).makeCurrent();
  }

  /**
   * Whether {@code span} (the one work runs within) belongs to a trace that goes on but is neither
   * sampled nor recorded (a client's unsampled {@code traceparent}, or a ratio sampler's choice):
   * the attempts and calls within it make no span of their own, and a provider call carries the
   * request's span on, flagged unsampled.
   */
  static boolean unsampled(Span span) {
    SpanContext context = span.getSpanContext();
    return context.isValid() && !context.isSampled() && !span.isRecording();
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    if (unsampled(Span.current())) {
      return engine.transcribe(request);
    }
    Context context = Context.current();
    SpanBuilder attempt =
        tracer
            .spanBuilder("engine attempt")
            .setAttribute(TARGET, target)
            .setAttribute(MODEL, request.settings().model());
    @Nullable String breaker = context.get(BREAKER_STATE);
    if (breaker != null) {
      attempt.setAttribute(BREAKER, breaker);
    }
    @Nullable Long piece = context.get(PIECE);
    if (piece != null) {
      attempt.setAttribute(PIECE_INDEX, piece);
    }
    Span span = attempt.startSpan();
    try (Scope scope = enter.apply(span)) {
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
