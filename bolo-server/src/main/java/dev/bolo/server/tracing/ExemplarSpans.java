package dev.bolo.server.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * The current span as the Prometheus client sees it when it samples an exemplar: a latency
 * histogram's bucket then names a trace that fell in it, shown on {@code /metrics} in the
 * OpenMetrics format. Only sampled spans are offered, so an exemplar always names a trace the
 * collector has. Stateless and thread safe.
 */
final class ExemplarSpans implements io.prometheus.metrics.tracer.common.SpanContext {

  @Override
  public String getCurrentTraceId() {
    SpanContext span = Span.current().getSpanContext();
    return span.isValid() ? span.getTraceId() : "";
  }

  @Override
  public String getCurrentSpanId() {
    SpanContext span = Span.current().getSpanContext();
    return span.isValid() ? span.getSpanId() : "";
  }

  @Override
  public boolean isCurrentSpanSampled() {
    SpanContext span = Span.current().getSpanContext();
    return span.isValid() && span.isSampled();
  }

  @Override
  public void markCurrentSpanAsExemplar() {
    // Nothing to mark: the span's trace is kept by its own sampling.
  }
}
