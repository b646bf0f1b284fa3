package dev.bolo.server.transcription;

import dev.bolo.server.engine.InvalidSettingException;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.ledger.UploadRegistry;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.webhook.WebhookSecrets;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.server.webhook.WebhookUrlPolicy;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Jobs (PROTOCOL v4): a device hands over a note and is answered at once; the {@link JobRunner}
 * transcribes it later through the same {@link Transcriber} a request uses, so a job is one more
 * waiter on the note's work (replays free, duplicates share one call, charged once). Checks a job
 * as a POST is checked, stores it with its note in the ledger's database, finds, lists and cancels
 * a device's own. Thread safe.
 */
public final class Jobs implements AutoCloseable {

  /**
   * What a device over its job bounds is told to wait: a waiting job of a minute's note ends within
   * about that (RFC 9110 Retry-After).
   */
  public static final Duration FULL_RETRY_AFTER = Duration.ofSeconds(30);

  /** The most metadata values a job carries (PROTOCOL v4). */
  public static final int MAX_METADATA_VALUES = 16;

  /**
   * Webhook events waiting for delivery beyond which the gateway reports itself degraded: receivers
   * are away or refusing, and the operator should look (PROTOCOL v4, {@code /readyz}).
   */
  public static final long MAX_PENDING_WEBHOOKS = 10_000;

  private final JobStore store;
  private final Intake intake;
  private final NoteLookup lookups;
  private final WebhookUrlPolicy urls;
  private final JobStore.Bounds bounds;
  private final Clock clock;
  private final UploadRegistry uploads;
  private final JobRendering rendering;
  private final JobRunner runner;
  private final WebhookDeliveries deliveries;

  /**
   * The settings of jobs.
   *
   * @param bounds how many waiting jobs, and how many bytes of their notes, one device may have
   * @param retention how long a job is kept after it was made ({@code BOLO_JOB_RETENTION})
   * @param atOnce how many jobs one instance runs at once
   */
  public record Config(JobStore.Bounds bounds, Duration retention, int atOnce) {
    public Config {
      Objects.requireNonNull(bounds, "bounds");
      if (retention.isNegative() || retention.isZero() || atOnce < 1) {
        throw new IllegalArgumentException(
            "jobs need a positive retention and run at least one at once: "
                + retention
                + ", "
                + atOnce);
      }
    }
  }

  /**
   * The webhook side jobs use, from {@code dev.bolo.server.webhook}.
   *
   * @param urls checks a {@code webhook_url} when a job is made
   * @param sender posts one signed event
   * @param secrets a device's signing secrets
   */
  public record Webhooks(WebhookUrlPolicy urls, WebhookSender sender, WebhookSecrets secrets) {}

  /**
   * Jobs on {@code ledger}'s tables, run through {@code transcriber}; nothing runs until {@link
   * #start()}.
   *
   * @param owner this instance's slot id, the owner of the leases it takes
   * @param spool where running jobs' notes are read back to
   * @param spans the spans of jobs' runs and webhook deliveries
   */
  public static Jobs open(
      DurableLedger ledger,
      Transcriber transcriber,
      Webhooks webhooks,
      JobRendering rendering,
      Config config,
      Clock clock,
      Sleeper sleeper,
      String owner,
      Path spool,
      MeterRegistry metrics,
      JobSpans spans) {
    JobMeters meters = new JobMeters(ledger.jobs(), clock);
    JobRunner runner =
        new JobRunner(
            ledger.jobs(),
            transcriber,
            rendering,
            ended -> WebhookDeliveries.eventOf(ended, clock.instant()),
            clock,
            sleeper,
            owner,
            spool,
            config.retention(),
            config.atOnce(),
            meters::refresh,
            spans);
    WebhookDeliveries deliveries =
        new WebhookDeliveries(
            ledger.webhookOutbox(),
            webhooks.sender(),
            webhooks.secrets(),
            clock,
            sleeper,
            () -> ThreadLocalRandom.current().nextDouble(),
            metrics,
            spans);
    meters.bind(metrics, deliveries::pending);
    return new Jobs(
        ledger.jobs(),
        transcriber.transcriptions(),
        transcriber.lookups(),
        webhooks.urls(),
        config.bounds(),
        clock,
        ledger.uploadRegistry(),
        rendering,
        runner,
        deliveries);
  }

  Jobs(
      JobStore store,
      Intake intake,
      NoteLookup lookups,
      WebhookUrlPolicy urls,
      JobStore.Bounds bounds,
      Clock clock,
      UploadRegistry uploads,
      JobRendering rendering,
      JobRunner runner,
      WebhookDeliveries deliveries) {
    this.store = Objects.requireNonNull(store, "store");
    this.intake = Objects.requireNonNull(intake, "intake");
    this.lookups = Objects.requireNonNull(lookups, "lookups");
    this.urls = Objects.requireNonNull(urls, "urls");
    this.bounds = Objects.requireNonNull(bounds, "bounds");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.uploads = Objects.requireNonNull(uploads, "uploads");
    this.rendering = Objects.requireNonNull(rendering, "rendering");
    this.runner = Objects.requireNonNull(runner, "runner");
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
  }

  /**
   * Degraded while more than {@link #MAX_PENDING_WEBHOOKS} webhook events wait for delivery, as the
   * delivery loop last counted them (the ledger's own check reports its database).
   */
  public Readiness webhookReadiness() {
    long pending = deliveries.pending();
    return pending > MAX_PENDING_WEBHOOKS
        ? Readiness.degraded(
            pending
                + " webhook events wait for delivery, more than "
                + MAX_PENDING_WEBHOOKS
                + ": receivers are away or refusing")
        : Readiness.ok();
  }

  /** Starts running waiting jobs (this slot's earlier run's at once) and delivering webhooks. */
  public void start() {
    runner.start();
    deliveries.start();
  }

  /**
   * Takes no more jobs; those running here go on and end as their work answers (a drain). Queued
   * jobs wait for another instance or this slot's next start.
   */
  public void stopTaking() {
    runner.stopTaking();
  }

  /** Stops both; running jobs are left to this slot's next start or another instance. */
  @Override
  public void close() {
    runner.close();
    deliveries.close();
  }

  /** Makes one attempt of every webhook due now, for tests that move the clock. */
  public int deliverDueWebhooks() {
    return deliveries.deliverDue();
  }

  /** How a submission was answered. */
  public sealed interface Submission {
    /**
     * The job, stored with its note, or the one the device made before with this Idempotency-Key
     * ({@code existing}).
     */
    record Accepted(JobRecord job, boolean existing) implements Submission {}

    /** The note or its settings, as a POST would be refused. */
    record Refused(NoteRefusal refusal) implements Submission {}

    /** The {@code webhook_url} is not one the gateway will call; the message says why. */
    record RefusedUrl(String message) implements Submission {}

    /** The Idempotency-Key names a job of other audio or settings. */
    record KeyReused(String message) implements Submission {}

    /** No finished resumable upload of that id for this device, or its transcript is gone. */
    record NoSuchUpload(String message) implements Submission {}

    /** The device's waiting jobs are at their bound; try again after {@link #FULL_RETRY_AFTER}. */
    record Full(String message) implements Submission {}
  }

  /**
   * Checks the note as {@code POST /v1/transcriptions} does, then stores the job and its note; the
   * job is queued once this returns. Nothing is stored when it is refused.
   *
   * @param metadata the client's values, at most {@link #MAX_METADATA_VALUES}
   */
  public Submission submit(
      NoteRequest request, @Nullable String webhookUrl, Map<String, String> metadata) {
    if (metadata.size() > MAX_METADATA_VALUES) {
      throw new IllegalArgumentException("at most 16 metadata values: " + metadata.size());
    }
    Transcriber.Note note;
    switch (intake.accept(request)) {
      case Intake.Acceptance.Refused refused -> {
        return new Submission.Refused(refused.refusal());
      }
      case Intake.Acceptance.Accepted accepted -> note = accepted.note();
    }
    if (webhookUrl != null) {
      try {
        urls.check(webhookUrl);
      } catch (WebhookUrlPolicy.RefusedWebhookUrl e) {
        return new Submission.RefusedUrl(
            Objects.requireNonNullElse(e.getMessage(), "this webhook_url may not be called"));
      }
    }
    String fields = JobFields.json(JobFields.of(request.fields()));
    JobRecord job =
        new JobRecord(
            JobFields.newId("job_"),
            note.device().name(),
            JobStatus.QUEUED,
            fields,
            note.audio().sha256(),
            note.audio().size(),
            note.audio().measuredDurationMs().isPresent()
                ? note.audio().measuredDurationMs().getAsLong()
                : null,
            note.claimedDurationMs().isPresent() ? note.claimedDurationMs().getAsLong() : null,
            note.idempotencyKey(),
            webhookUrl,
            JobFields.json(metadata),
            null,
            null,
            clock.instant(),
            null,
            0,
            // The request's span: each run of the job links to it, after a restart too.
            JobSpans.traceparent());
    JobStore.Creation creation;
    try (InputStream audio = note.audio().open()) {
      creation = store.create(job, audio, bounds);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return switch (creation) {
      case JobStore.Creation.Created created -> {
        runner.poke();
        yield new Submission.Accepted(created.job(), false);
      }
      case JobStore.Creation.Existing existing ->
          existing.job().audioSha256().equals(job.audioSha256())
                  && existing.job().fields().equals(fields)
              ? new Submission.Accepted(existing.job(), true)
              : new Submission.KeyReused(
                  "this Idempotency-Key was used for a job of other audio or settings; use a new"
                      + " key per job");
      case JobStore.Creation.Full full -> new Submission.Full(full.message());
    };
  }

  /**
   * A job for the note of the device's finished resumable upload {@code uploadId}: that note was
   * transcribed when its last byte arrived, so the job succeeds at once from the replay (not
   * charged), its webhook told in the same transaction. Its bytes are gone with the upload: an
   * upload whose transcript is no longer kept, or that failed, makes no job.
   */
  public Submission submitUpload(
      Device device,
      String uploadId,
      @Nullable String webhookUrl,
      Map<String, String> metadata,
      @Nullable String idempotencyKey)
      throws InterruptedException {
    return new UploadJobs(uploads, intake, lookups, urls, store, bounds, rendering, clock, runner)
        .submit(device, uploadId, webhookUrl, metadata, idempotencyKey);
  }

  /** The device's job {@code id}; empty when there is none, or it is another device's. */
  public Optional<JobRecord> find(Device device, String id) {
    return store.find(id).filter(job -> job.device().equals(device.name()));
  }

  /** How far the job's work has got, when it runs on this instance. */
  public Optional<WorkProgress> progress(JobRecord job) {
    if (job.status() != JobStatus.RUNNING) {
      return Optional.empty();
    }
    try {
      return lookups.progress(
          new Device(job.device()),
          intake.settingsOfUploaded(SettingFields.of(JobFields.of(job.fields()))),
          job.audioSha256());
    } catch (InvalidSettingException e) {
      return Optional.empty();
    }
  }

  /**
   * The device's jobs, newest first.
   *
   * @param after the id of the last job of the page before, if any; an unknown id starts over
   */
  public List<JobRecord> list(
      Device device, @Nullable JobStatus status, @Nullable String after, int limit) {
    JobRecord from = after == null ? null : find(device, after).orElse(null);
    return store.list(device.name(), status, from, limit);
  }

  /**
   * Cancels the device's job if it has not ended: it ends {@code cancelled} and its webhook is
   * told. Its work is stopped and not charged, unless other requests or jobs wait for it: then it
   * goes on for them. The instance running it learns of it here or at its next lease renewal.
   *
   * @return the job as it is now; empty when there is none, or it is another device's
   */
  public Optional<JobRecord> cancel(Device device, String id) {
    Optional<JobRecord> job = find(device, id);
    if (job.isEmpty() || job.get().status().isFinal()) {
      return job;
    }
    Optional<JobRecord> ended =
        runner.end(id, new JobStore.Ending(JobStatus.CANCELLED, null, null, null));
    runner.cancelled(id);
    return ended.or(() -> find(device, id));
  }

  /** Deletes the jobs older than the retention ({@code BOLO_JOB_RETENTION}); how many went. */
  public int sweep() {
    return runner.sweep();
  }
}
