package dev.bolo.server.tracing;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The gateway's metrics registry with traces on: its timers, the latency histograms, keep exemplars
 * naming the trace current when a value was recorded; its counters, gauges and summaries keep none.
 *
 * <p>Why not all of them: the Prometheus client gives every meter its own exemplar sampler, which
 * after each sample it takes schedules a task on its one scheduler thread to take the next (90 ms
 * later). With every meter sampling, that thread alone took 1.1 % of a traced gateway's CPU ({@code
 * docs/performance.md}), for exemplars on counters no one asked for.
 *
 * <p>How: the timers are made by a second registry built with the exemplars' {@link ExemplarSpans}
 * and sharing this one's {@link PrometheusRegistry}, so {@code /metrics} shows both as one. The
 * timers are still this registry's meters (found, listed and closed through it). Two things differ
 * from one registry, neither of which the gateway does: a timer removed from it keeps its series on
 * {@code /metrics}; and a timer and another meter whose Prometheus names clash are not refused when
 * the second registers (the plain registry drops the second with a warning), so a scrape would fail
 * on the clash. This registry's naming convention and registration-failure handling do not reach
 * the timers. Thread safe.
 */
final class ExemplarTimers extends PrometheusMeterRegistry {

  private final Sampling timers;

  ExemplarTimers() {
    this(new PrometheusRegistry());
  }

  private ExemplarTimers(PrometheusRegistry shared) {
    super(PrometheusConfig.DEFAULT, shared, Clock.SYSTEM);
    this.timers = new Sampling(shared);
  }

  @Override
  protected Timer newTimer(
      Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
    return timers.timer(id, config, pauseDetector);
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      timers.close();
    }
  }

  /** The registry that makes the timers, each with an exemplar sampler. */
  private static final class Sampling extends PrometheusMeterRegistry {
    Sampling(PrometheusRegistry shared) {
      super(PrometheusConfig.DEFAULT, shared, Clock.SYSTEM, new ExemplarSpans());
    }

    Timer timer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
      return newTimer(id, config, pauseDetector);
    }
  }
}
