package dev.bolo.server.tracing;

import static io.opentelemetry.semconv.ErrorAttributes.ERROR_TYPE;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_REQUEST_METHOD;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_RESPONSE_STATUS_CODE;
import static io.opentelemetry.semconv.ServerAttributes.SERVER_ADDRESS;
import static io.opentelemetry.semconv.ServerAttributes.SERVER_PORT;
import static io.opentelemetry.semconv.UrlAttributes.URL_FULL;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * The spans of a job's story, which outlives the request that made it: the job's {@code
 * traceparent} is kept with it in the ledger, so each run of the job (after a restart, on another
 * instance) is a trace of its own whose {@code job run} span links to that request's span, as
 * OpenTelemetry's messaging conventions link a consumer to its producer; the note's spans (the work
 * key's resolution with its charge's event, the engine attempts) are its children. Each webhook
 * delivery attempt is an HTTP client span, a child of the span that ended the job, and sends the
 * trace on to the receiver. Off, every span is {@link Span#getInvalid()} and no header is sent.
 * Thread safe.
 */
public final class JobSpans {

  /** The job's id, as its answers and webhook events name it. */
  public static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("bolo.job.id");

  /** Which time an instance takes the job: 1, then 2 after a failure a later attempt may pass. */
  static final AttributeKey<Long> JOB_ATTEMPT = AttributeKey.longKey("bolo.job.attempt");

  /** How the run ended ({@link Outcome}): {@code succeeded}, {@code failed}, {@code retried}, … */
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("bolo.job.outcome");

  /** Which attempt of one webhook event: 1, 2, … */
  static final AttributeKey<Long> WEBHOOK_ATTEMPT = AttributeKey.longKey("bolo.webhook.attempt");

  private static final String TRACEPARENT = "traceparent";

  /** Writes a context's headers into a map. */
  public static final TextMapSetter<Map<String, String>> PUT =
      (carrier, key, value) -> {
        if (carrier != null) {
          carrier.put(key, value);
        }
      };

  /** Reads a context's headers from a map. */
  public static final TextMapGetter<Map<String, String>> MAP =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private final boolean on;
  private final Tracer tracer;
  private final TextMapPropagator propagator;

  /** Spans made by {@code tracing}'s tracer, sent on to receivers with its propagator. */
  public JobSpans(Tracing tracing) {
    this.on = tracing.isOn();
    this.tracer = tracing.tracer();
    this.propagator = tracing.propagator();
  }

  /**
   * The W3C {@code traceparent} of the span current on this thread, to keep with a job or its
   * webhook event; null when no span is recorded (traces off, or the work was not traced).
   */
  public static @Nullable String traceparent() {
    if (!Span.current().getSpanContext().isValid()) {
      return null;
    }
    Map<String, String> headers = new HashMap<>();
    W3CTraceContextPropagator.getInstance().inject(Context.current(), headers, PUT);
    return headers.get(TRACEPARENT);
  }

  /**
   * Begins the span of one run of the job {@code jobId} and makes it current on this thread, with
   * the tracer the note's spans are made by; closing the run ends it.
   *
   * @param attempt which time an instance took the job
   * @param submitted the {@code traceparent} of the request that made the job, linked to; or null
   */
  @SuppressWarnings("MustBeClosedChecker") // The run's scope closes with the run.
  public Run run(String jobId, int attempt, @Nullable String submitted) {
    var builder =
        tracer
            .spanBuilder("job run")
            .setNoParent()
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(JOB_ID, jobId)
            .setAttribute(JOB_ATTEMPT, (long) attempt);
    SpanContext link = remote(submitted);
    if (link.isValid()) {
      builder.addLink(link);
    }
    Span span = builder.startSpan();
    if (!span.getSpanContext().isValid()) {
      return new Run(span, Scope.noop());
    }
    return new Run(span, NoteSpans.enter(NoteSpans.carry(Context.root().with(span), tracer)));
  }

  /** How one run of a job ended, as its span's {@code bolo.job.outcome} names it. */
  public enum Outcome {
    /** The job succeeded. */
    SUCCEEDED,
    /** The job failed: the span's status is an error. */
    FAILED,
    /** The run failed in a way a later one may not: the job is queued again. */
    RETRIED,
    /** The job was cancelled while it ran. */
    CANCELLED,
    /** The gateway stopped: the job waits for its next start or another instance. */
    STOPPED;

    String attribute() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One run of a job: its span, current on the thread that runs it until it closes. */
  public static final class Run implements AutoCloseable {
    private final Span span;
    private final Scope scope;

    private Run(Span span, Scope scope) {
      this.span = span;
      this.scope = scope;
    }

    /** Names how the run ended. */
    public void ended(Outcome outcome) {
      span.setAttribute(OUTCOME, outcome.attribute());
      if (outcome == Outcome.FAILED) {
        span.setStatus(StatusCode.ERROR);
      }
    }

    @Override
    public void close() {
      scope.close();
      span.end();
    }
  }

  /**
   * Begins the client span of a webhook delivery attempt, a child of the span that ended the job
   * ({@code ended}'s {@code traceparent}, or none); the headers to send it on are {@link
   * #headers(Span)}. Only the URL's scheme, host and port go on the span ({@link #withoutSecrets}),
   * and neither the body, the secrets nor the signature.
   */
  public Span delivery(String url, @Nullable String ended, String jobId, int attempt) {
    @Nullable HttpUrl parsed = HttpUrl.parse(url);
    // Off, even the trace of a job made while traces were on is not sent on.
    if (!on || parsed == null) {
      return Span.getInvalid();
    }
    SpanContext parent = remote(ended);
    return tracer
        .spanBuilder("POST")
        .setParent(parent.isValid() ? Context.root().with(Span.wrap(parent)) : Context.root())
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(HTTP_REQUEST_METHOD, "POST")
        .setAttribute(SERVER_ADDRESS, parsed.host())
        .setAttribute(SERVER_PORT, (long) parsed.port())
        .setAttribute(URL_FULL, withoutSecrets(parsed))
        .setAttribute(WEBHOOK_ATTEMPT, (long) attempt)
        .setAttribute(JOB_ID, jobId)
        .startSpan();
  }

  /**
   * A receiver's URL as a span may show it: its scheme, host and port; a path other than {@code /}
   * becomes {@code /REDACTED} (as the semantic conventions mark scrubbed parts), since receivers
   * such as Slack's and Discord's keep their key in it, and the query, user and fragment go.
   */
  static String withoutSecrets(HttpUrl url) {
    HttpUrl.Builder shown = url.newBuilder().username("").password("").query(null).fragment(null);
    if (!url.encodedPath().equals("/")) {
      shown.encodedPath("/REDACTED");
    }
    return shown.build().toString();
  }

  /**
   * The headers ({@code traceparent}, {@code tracestate}) that carry {@code span} to a receiver.
   */
  public Map<String, String> headers(Span span) {
    Map<String, String> headers = new HashMap<>();
    if (span.getSpanContext().isValid()) {
      propagator.inject(Context.root().with(span), headers, PUT);
    }
    return headers;
  }

  /**
   * Ends a delivery's span with the receiver's status (0: no answer, {@code failure} says why in a
   * word of the gateway's own).
   */
  public static void delivered(Span span, int status, String failure) {
    if (status > 0) {
      span.setAttribute(HTTP_RESPONSE_STATUS_CODE, (long) status);
    }
    if (status == 0 || status >= 400) {
      span.setAttribute(ERROR_TYPE, status == 0 ? failure : Integer.toString(status));
      span.setStatus(StatusCode.ERROR);
    }
    span.end();
  }

  /** The span context a kept {@code traceparent} names; invalid when there is none. */
  private static SpanContext remote(@Nullable String traceparent) {
    if (traceparent == null) {
      return SpanContext.getInvalid();
    }
    Context extracted =
        W3CTraceContextPropagator.getInstance()
            .extract(Context.root(), Map.of(TRACEPARENT, traceparent), MAP);
    return Span.fromContext(extracted).getSpanContext();
  }
}
