package dev.bolo.server.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** With traces on, the latency histograms keep exemplars and the other meters none. */
class ExemplarTimersTest {

  private static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0";
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";

  @Test
  void aTimerNamesTheSampledSpanItWasRecordedInAndACounterOrSummaryDoesNot() {
    ExemplarTimers registry = new ExemplarTimers();
    try {
      Span sampled =
          Span.wrap(
              SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault()));
      try (Scope scope = sampled.makeCurrent()) {
        Timer.builder("note_latency")
            .serviceLevelObjectives(Duration.ofSeconds(1))
            .register(registry)
            .record(Duration.ofMillis(300));
        Counter.builder("notes_total").register(registry).increment();
        DistributionSummary.builder("note_length")
            .serviceLevelObjectives(10)
            .register(registry)
            .record(4);
      }

      List<String> lines = registry.scrape(OPEN_METRICS).lines().toList();
      assertThat(lines)
          .filteredOn(line -> line.startsWith("note_latency_seconds_bucket"))
          .anySatisfy(
              line -> assertThat(line).contains("trace_id=\"" + TRACE + "\"", "span_id=\"" + SPAN));
      assertThat(lines)
          .filteredOn(line -> line.startsWith("notes_total") || line.startsWith("note_length"))
          .isNotEmpty()
          .noneSatisfy(line -> assertThat(line).contains("trace_id"));
      // One registry to the operator: the timer is found and listed through it like any meter.
      assertThat(registry.find("note_latency").timer()).isNotNull();
      assertThat(registry.getMeters()).hasSize(3);
    } finally {
      registry.close();
    }
  }

  @Test
  void aTimerRecordedOutsideASampledSpanHasNoExemplar() {
    ExemplarTimers registry = new ExemplarTimers();
    try {
      Span unsampled =
          Span.wrap(
              SpanContext.create(TRACE, SPAN, TraceFlags.getDefault(), TraceState.getDefault()));
      try (Scope scope = unsampled.makeCurrent()) {
        Timer.builder("note_latency").register(registry).record(Duration.ofMillis(300));
      }
      assertThat(registry.scrape(OPEN_METRICS))
          .contains("note_latency_seconds_count")
          .doesNotContain("trace_id");
    } finally {
      registry.close();
    }
  }
}
