package dev.bolo.server.engine.route;

import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.TracedEngine;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Each target's figures in {@code /metrics}: {@code bolo_target_calls_total{target,outcome}},
 * {@code bolo_target_skipped_total{target}} (passed over: breaker open, full, out of calls), {@code
 * bolo_target_ambiguous_timeouts_total{target}} (timed out, then failed over: the provider may have
 * billed the call anyway), and the gauges {@code bolo_target_breaker_state{target}} (0 closed, 1
 * open, 2 half open), {@code bolo_target_in_flight{target}} and {@code bolo_target_queued}.
 */
final class RouteMeters {

  private @Nullable MeterRegistry registry;

  void bind(MeterRegistry registry, List<Target> targets) {
    this.registry = registry;
    for (Target target : targets) {
      String label = target.hop().label();
      Gauge.builder("bolo_target_breaker_state", target, RouteMeters::stateNumber)
          .tag("target", label)
          .description("0 closed, 1 open, 2 half open")
          .register(registry);
      Gauge.builder("bolo_target_in_flight", target, Target::inFlight)
          .tag("target", label)
          .register(registry);
      Gauge.builder("bolo_target_queued", target, Target::queued)
          .tag("target", label)
          .register(registry);
    }
  }

  private static double stateNumber(Target target) {
    CircuitBreaker.State state = target.breaker().getState();
    return switch (state) {
      case OPEN, FORCED_OPEN -> 1;
      case HALF_OPEN -> 2;
      default -> 0;
    };
  }

  void called(Target target, EngineResult result) {
    // The metric has always said "ok" where the span says "transcribed".
    String outcome =
        result instanceof EngineResult.Transcribed ? "ok" : TracedEngine.outcomeOf(result);
    count("bolo_target_calls_total", target, "outcome", outcome);
  }

  void skipped(Target target) {
    count("bolo_target_skipped_total", target, null, null);
  }

  void ambiguous(Target target) {
    count("bolo_target_ambiguous_timeouts_total", target, null, null);
  }

  private void count(String name, Target target, @Nullable String tag, @Nullable String value) {
    MeterRegistry meters = registry;
    if (meters == null) {
      return;
    }
    Counter.Builder counter = Counter.builder(name).tag("target", target.hop().label());
    if (tag != null && value != null) {
      counter.tag(tag, value);
    }
    counter.register(meters).increment();
  }
}
