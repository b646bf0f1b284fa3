package dev.bolo.server.tracing;

import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The spans of a note's story, made as children of the current span with the tracer the traced
 * request's context carries: the request's wrapper puts it there ({@link #carry}) and it travels
 * with the context to the work's threads ({@link #carried(Executor, Tracing)}), so the parts inside
 * (the upload's reading, the work key's resolution) take no tracer of their own; a job's run
 * carries its tracer the same way ({@link JobSpans}). Where no traced request or run began the work
 * (traces off), or its trace is not sampled, every span is {@link Span#getInvalid()}: nothing is
 * recorded and nothing allocated. Stateless and thread safe.
 *
 * <p>While a span is current through {@link #enter}, the log lines of its thread carry its {@code
 * trace_id} and {@code span_id} (MDC), as OpenTelemetry's own Logback integration names them.
 */
public final class NoteSpans {

  /** The MDC keys of a line written within a span. */
  public static final String TRACE_ID = "trace_id";

  public static final String SPAN_ID = "span_id";

  /** Bytes of the note's audio, as read and hashed from its upload. */
  public static final AttributeKey<Long> AUDIO_BYTES = AttributeKey.longKey("bolo.audio.bytes");

  /** The first hex digits of the work key's hash: enough to find a note's lines, no more. */
  public static final AttributeKey<String> WORK_KEY = AttributeKey.stringKey("bolo.work_key");

  /** How a copy of the note was served: {@code owner}, {@code joined} or {@code replayed}. */
  public static final AttributeKey<String> RESOLUTION = AttributeKey.stringKey("bolo.resolution");

  /** Milliseconds of audio charged to the device. */
  public static final AttributeKey<Long> CHARGED_MS = AttributeKey.longKey("bolo.charged_ms");

  /** The request's id, as its access line and answer carry it. */
  public static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("bolo.request_id");

  /** The event of a note's charge, on the span of the work that made its transcript. */
  public static final String CHARGE = "charge";

  /** Hex digits of a work key kept on a span: 12, a 48-bit prefix, as Git's short names. */
  private static final int WORK_KEY_DIGITS = 12;

  private static final ContextKey<Tracer> TRACER = ContextKey.named("bolo.tracer");

  private NoteSpans() {}

  /** {@code context} carrying {@code tracer} for the spans made within it. */
  public static Context carry(Context context, Tracer tracer) {
    return context.with(TRACER, tracer);
  }

  /**
   * {@code executor} running each task within the context it was handed over in, when traces are
   * on; {@code executor} itself when off.
   */
  public static Executor carried(Executor executor, Tracing tracing) {
    return tracing.isOn() ? Context.taskWrapping(executor) : executor;
  }

  /**
   * A span named {@code name} begun now as a child of the current one; invalid when untraced, and
   * when the current span is neither sampled nor recording: a note no one records makes no span
   * inside its request's (nothing would keep it), and its log lines name the request's span. The
   * engine's spans follow the same rule ({@code TracedEngine.unsampled}), written there because the
   * engine does not depend on this package.
   */
  public static Span start(String name) {
    Context current = Context.current();
    @Nullable Tracer tracer = current.get(TRACER);
    Span parent = Span.fromContext(current);
    if (tracer == null || !(parent.getSpanContext().isSampled() || parent.isRecording())) {
      return Span.getInvalid();
    }
    return tracer.spanBuilder(name).setParent(current).startSpan();
  }

  /**
   * Makes {@code span} current on this thread, its ids in the log lines, until the scope closes.
   */
  public static Scope enter(Span span) {
    if (!span.getSpanContext().isValid()) {
      return Scope.noop();
    }
    return enter(Context.current().with(span));
  }

  /**
   * Makes {@code context} current on this thread, its span's ids in the log lines; the caller
   * closes the scope on the same thread.
   */
  @SuppressWarnings("MustBeClosedChecker") // Handed to the caller, who closes it.
  public static Scope enter(Context context) {
    Scope current = context.makeCurrent();
    SpanContext span = Span.fromContext(context).getSpanContext();
    if (!span.isValid()) {
      return current;
    }
    @Nullable String outerTrace = MDC.get(TRACE_ID);
    @Nullable String outerSpan = MDC.get(SPAN_ID);
    MDC.put(TRACE_ID, span.getTraceId());
    MDC.put(SPAN_ID, span.getSpanId());
    return () -> {
      restore(TRACE_ID, outerTrace);
      restore(SPAN_ID, outerSpan);
      current.close();
    };
  }

  /** The span of the work key's resolution, begun now, {@code key} named by its prefix. */
  public static Span resolving(WorkKey key) {
    Span span = start("resolve work key");
    if (span.isRecording()) {
      span.setAttribute(WORK_KEY, workKeyPrefix(key));
    }
    return span;
  }

  /**
   * Ends the resolution's span with how the copy was served: {@code owner} (its own work ran),
   * {@code joined} (it waited for a copy already running) or {@code replayed} (a stored result).
   */
  public static void resolved(Span span, @Nullable Replay replay) {
    if (replay != null) {
      span.setAttribute(
          RESOLUTION,
          switch (replay) {
            case NONE -> "owner";
            case JOINED -> "joined";
            case CACHED -> "replayed";
          });
    }
    span.end();
  }

  /**
   * Marks the charge of {@code millis} of audio on the current span (the resolution's, whose work
   * made the transcript), as an event: the charge is a moment (handed to the ledger's outbox, which
   * writes it with others in its next batch), with no duration of its own to show. When that span
   * has ended already (its wait was withdrawn, a cancelled job's, while the work went on for a copy
   * that joined it), an ended span takes no event: the charge is then a short span of its own, its
   * child, as it always was before. Nothing when the work is untraced or not sampled.
   */
  public static void charged(long millis) {
    Span current = Span.current();
    if (current.isRecording()) {
      current.addEvent(CHARGE, Attributes.of(CHARGED_MS, millis));
    } else if (current.getSpanContext().isSampled()) {
      Span charge = start(CHARGE);
      charge.setAttribute(CHARGED_MS, millis);
      charge.end();
    }
  }

  /**
   * The work key as spans show it: the first hex digits of its SHA-256, which name no device and no
   * audio, yet tell one note's spans from another's.
   */
  public static String workKeyPrefix(WorkKey key) {
    return WorkKey.sha256Hex(key.asString().getBytes(StandardCharsets.UTF_8))
        .substring(0, WORK_KEY_DIGITS);
  }

  private static void restore(String key, @Nullable String outer) {
    if (outer == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, outer);
    }
  }
}
