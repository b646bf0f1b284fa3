package dev.bolo.server.tracing;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

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
 * the timers.
 *
 * <p>How often: each timer's series takes a value for its exemplar at most once a second ({@link
 * #SAMPLE_INTERVAL_MILLIS}), not every 90 ms as the Prometheus client would. Each value taken
 * re-arms the sampler on the client's scheduler thread; at 90 ms those wake-ups cost a traced
 * gateway several per cent of its CPU per note, more than the thread's own CPU shows ({@code
 * docs/performance.md}, runs 18 and 19). A second still keeps an exemplar in every bucket a scrape
 * interval sees often; a rare slow request is less often one. The client's own system property
 * ({@value #SAMPLE_INTERVAL}) set on the gateway's JVM wins. Thread safe.
 */
final class ExemplarTimers extends PrometheusMeterRegistry {

  /** The Prometheus client's property of how often an exemplar sampler takes a value. */
  static final String SAMPLE_INTERVAL = "io.prometheus.exemplars.sample_interval_milliseconds";

  /** How often a timer's series takes a value for its exemplar, unless the property says. */
  static final long SAMPLE_INTERVAL_MILLIS = 1_000;

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
      super(new SamplingConfig(), shared, Clock.SYSTEM, new ExemplarSpans());
    }

    Timer timer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
      return newTimer(id, config, pauseDetector);
    }
  }

  /**
   * The defaults, with the exemplars' sampling interval at {@link #SAMPLE_INTERVAL_MILLIS} unless
   * the JVM's system property gives one (the client reads it, but a value given here would win).
   */
  static final class SamplingConfig implements PrometheusConfig {
    @Override
    public @Nullable String get(String key) {
      return null;
    }

    @Override
    public Properties prometheusProperties() {
      Properties properties = new Properties();
      @Nullable Properties defaults = PrometheusConfig.super.prometheusProperties();
      if (defaults != null) {
        properties.putAll(defaults);
      }
      if (System.getProperty(SAMPLE_INTERVAL) == null) {
        properties.setProperty(SAMPLE_INTERVAL, Long.toString(SAMPLE_INTERVAL_MILLIS));
      }
      return properties;
    }
  }
}
