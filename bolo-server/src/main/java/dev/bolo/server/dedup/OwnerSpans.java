package dev.bolo.server.dedup;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The span of a claim's owner as a shared store keeps it beside the claim: its W3C {@code
 * traceparent} (trace id, span id, flags: 55 characters), written and read by OpenTelemetry's own
 * W3C propagator. No {@code tracestate}, no baggage: a link needs the span's ids only, and what an
 * operator's vendor put in the trace state has no business in the store. Stateless and thread safe.
 */
final class OwnerSpans {

  /** A version-00 traceparent's length; anything longer in the store is not read. */
  static final int TRACEPARENT_LENGTH = 55;

  private static final String TRACEPARENT = "traceparent";

  private static final TextMapGetter<String> ONE_VALUE =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
          return List.of(TRACEPARENT);
        }

        @Override
        public @Nullable String get(@Nullable String carrier, String key) {
          return TRACEPARENT.equals(key) ? carrier : null;
        }
      };

  private OwnerSpans() {}

  /** {@code span} as a traceparent; empty when it is invalid (traces off, an untraced copy). */
  static String traceparent(SpanContext span) {
    if (!span.isValid()) {
      return "";
    }
    Map<String, String> headers = new HashMap<>();
    W3CTraceContextPropagator.getInstance()
        .inject(
            Context.root().with(Span.wrap(span)),
            headers,
            (carrier, name, value) -> {
              if (carrier != null) {
                carrier.put(name, value);
              }
            });
    return headers.getOrDefault(TRACEPARENT, "");
  }

  /**
   * The span a traceparent names, as a remote one; invalid when {@code traceparent} is absent,
   * longer than a version-00 one, or not a traceparent at all (the store's value is only a hint).
   */
  static SpanContext fromTraceparent(@Nullable String traceparent) {
    if (traceparent == null || traceparent.length() != TRACEPARENT_LENGTH) {
      return SpanContext.getInvalid();
    }
    Context extracted =
        W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, ONE_VALUE);
    return Span.fromContext(extracted).getSpanContext();
  }
}
