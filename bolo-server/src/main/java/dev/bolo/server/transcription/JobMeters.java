package dev.bolo.server.transcription;

import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The jobs' gauges: jobs by status over every instance, the age of the oldest queued job, webhook
 * events waiting. They show what the job runner last read from the ledger's database on its poll
 * ({@link #refresh}), so a scrape never waits for a database that is away. (Deliveries by outcome
 * are counted where they are made, {@code bolo_webhook_deliveries_total{outcome}}.) Thread safe.
 */
final class JobMeters {

  private final JobStore jobs;
  private final Clock clock;
  private final AtomicLongArray byStatus = new AtomicLongArray(JobStatus.values().length);
  private volatile double queueAgeSeconds;

  JobMeters(JobStore jobs, Clock clock) {
    this.jobs = jobs;
    this.clock = clock;
  }

  /** Registers the gauges; {@code pendingWebhooks} is the delivery loop's last count. */
  void bind(MeterRegistry registry, LongSupplier pendingWebhooks) {
    for (JobStatus status : JobStatus.values()) {
      Gauge.builder("bolo_jobs", byStatus, counts -> counts.get(status.ordinal()))
          .tag("status", status.wireName())
          .description("Jobs in the ledger by status, over every instance sharing it")
          .register(registry);
    }
    Gauge.builder("bolo_job_queue_age_seconds", this, meters -> meters.queueAgeSeconds)
        .description("How long the oldest queued job has waited; 0 when none waits")
        .register(registry);
    Gauge.builder("bolo_webhooks_pending", pendingWebhooks, LongSupplier::getAsLong)
        .description("Webhook events of ended jobs waiting for delivery")
        .register(registry);
  }

  /** Reads the counts again; called by the job runner's poll, which reports a database away. */
  void refresh() {
    long[] counts = jobs.countByStatus();
    for (int i = 0; i < counts.length; i++) {
      byStatus.set(i, counts[i]);
    }
    queueAgeSeconds = jobs.oldestQueued(clock.instant()).toMillis() / 1000.0;
  }
}
