package dev.bolo.server.transcription;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.WebhookOutbox;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.tracing.JobSpans.Outcome;
import dev.bolo.server.upload.PartialNote;
import dev.bolo.server.upload.SpooledAudio;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs waiting jobs: takes the lease of one at a time from the ledger's database, reads its note
 * back into this instance's spool, and hands it to the {@link Transcriber} as a request would; ends
 * the job with the answer, and in the same transaction stores its webhook event. Leases are renewed
 * while the work runs, so a job is run by one instance at a time; an instance that dies leaves its
 * leases to lapse, and frees them at once when it starts again on its slot. Thread safe.
 */
final class JobRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

  /** How long a job's lease lasts without renewal: a dead instance's jobs wait this long. */
  static final Duration LEASE = Duration.ofSeconds(60);

  /**
   * How often the runner looks for jobs it was not told of (another instance's, a lapsed lease) and
   * renews its leases, a thirtieth of a lease.
   */
  static final Duration POLL = Duration.ofSeconds(2);

  /** How often jobs past their retention are deleted. */
  static final Duration SWEEP_INTERVAL = Duration.ofHours(1);

  private final JobStore store;
  private final Transcriber transcriber;
  private final Intake intake;
  private final JobRendering rendering;
  private final Function<JobRecord, Optional<WebhookOutbox.Event>> events;
  private final Clock clock;
  private final Sleeper sleeper;
  private final String owner;
  private final Path spool;
  private final Duration retention;
  private final Semaphore slots;
  private final Runnable afterPoll;
  private final JobSpans spans;

  /** The jobs running here, each with its cancellation: completed once it is no longer ours. */
  private final Map<String, CompletableFuture<Void>> running = new ConcurrentHashMap<>();

  private volatile boolean closed;
  private volatile boolean stopped;
  private volatile @Nullable Thread loop;
  private @Nullable Instant lastSweep;

  /**
   * @param events the webhook event of an ended job, if it has a {@code webhook_url}
   * @param owner this instance's slot id: the owner of the leases it takes
   * @param spool where a running job's note is read back to; emptied when the slot is taken
   * @param atOnce how many jobs this instance runs at once
   * @param afterPoll runs after each poll (the meters read their counts)
   * @param spans each run's span, linked to the request that made the job
   */
  JobRunner(
      JobStore store,
      Transcriber transcriber,
      JobRendering rendering,
      Function<JobRecord, Optional<WebhookOutbox.Event>> events,
      Clock clock,
      Sleeper sleeper,
      String owner,
      Path spool,
      Duration retention,
      int atOnce,
      Runnable afterPoll,
      JobSpans spans) {
    this.store = Objects.requireNonNull(store, "store");
    this.transcriber = Objects.requireNonNull(transcriber, "transcriber");
    this.intake = transcriber.transcriptions();
    this.rendering = Objects.requireNonNull(rendering, "rendering");
    this.events = Objects.requireNonNull(events, "events");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.owner = Objects.requireNonNull(owner, "owner");
    this.spool = Objects.requireNonNull(spool, "spool");
    this.retention = Objects.requireNonNull(retention, "retention");
    this.slots = new Semaphore(atOnce);
    this.afterPoll = Objects.requireNonNull(afterPoll, "afterPoll");
    this.spans = Objects.requireNonNull(spans, "spans");
  }

  /**
   * Frees the leases this slot held in its earlier run (killed before its jobs ended) and starts
   * looking for jobs: the ones of that run are taken again at once.
   */
  void start() {
    int freed = store.freeLeasesOf(owner);
    if (freed > 0) {
      log.info("{} jobs of this slot's earlier run are queued again", freed);
    }
    loop = Thread.ofVirtual().name("bolo-jobs").start(this::loop);
  }

  /** Looks for jobs now, off the caller's thread: one was just queued. */
  void poke() {
    if (!closed) {
      Thread.ofVirtual()
          .name("bolo-jobs-poke")
          .start(
              () -> {
                try {
                  takeWhileRoom();
                } catch (LedgerException e) {
                  // The poll takes it once the database is back.
                  log.warn("jobs cannot be taken now: {}", e.getMessage());
                }
              });
    }
  }

  /** Takes no more jobs; those running go on and end as their work answers. */
  void stopTaking() {
    stopped = true;
  }

  /** Ends the job {@code id} with {@code ending} unless it ended already; the ended job. */
  Optional<JobRecord> end(String id, JobStore.Ending ending) {
    return store.finish(id, ending, clock.instant(), events);
  }

  /**
   * Withdraws the job {@code id}'s wait if it runs here: it was cancelled. Its work stops unless
   * another request or job on this instance waits for it; see {@link #renewLeases} for a job
   * cancelled through another instance.
   */
  void cancelled(String id) {
    CompletableFuture<Void> cancellation = running.get(id);
    if (cancellation != null) {
      cancellation.complete(null);
    }
  }

  /** The webhook event of the ended job, if it has a {@code webhook_url}. */
  Optional<WebhookOutbox.Event> eventOf(JobRecord ended) {
    return events.apply(ended);
  }

  /** Deletes the jobs past the retention now; how many went. */
  int sweep() {
    lastSweep = clock.instant();
    return store.deleteMadeBefore(clock.instant().minus(retention));
  }

  private void loop() {
    while (!closed) {
      try {
        renewLeases();
        takeWhileRoom();
        afterPoll.run();
        Instant now = clock.instant();
        if (lastSweep == null || !now.isBefore(lastSweep.plus(SWEEP_INTERVAL))) {
          int swept = sweep();
          if (swept > 0) {
            log.info("{} jobs past their retention deleted", swept);
          }
        }
      } catch (LedgerException e) {
        log.warn("jobs cannot be looked at now: {}", e.getMessage());
      }
      try {
        sleeper.sleep(POLL);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Renews the leases of the jobs running here; a job whose lease cannot be renewed ended (it was
   * cancelled, through whichever instance) or was taken by another instance: its wait here is
   * withdrawn, so a poll after its cancellation stops its work.
   */
  private void renewLeases() {
    Instant until = clock.instant().plus(LEASE);
    for (Map.Entry<String, CompletableFuture<Void>> job : running.entrySet()) {
      if (!store.renew(job.getKey(), owner, until) && job.getValue().complete(null)) {
        log.info(
            "job {} is no longer this instance's to run: cancelled, or its lease lost",
            job.getKey());
      }
    }
  }

  private void takeWhileRoom() {
    while (!closed && !stopped && slots.tryAcquire()) {
      Optional<JobRecord> claimed;
      try {
        Instant now = clock.instant();
        claimed = store.claim(owner, now, now.plus(LEASE));
      } catch (RuntimeException e) {
        slots.release();
        throw e;
      }
      if (claimed.isEmpty()) {
        slots.release();
        return;
      }
      JobRecord job = claimed.get();
      CompletableFuture<Void> cancellation = new CompletableFuture<>();
      running.put(job.id(), cancellation);
      Thread.ofVirtual().name("bolo-job").start(() -> traced(job, cancellation));
    }
  }

  /** Runs the job within its run's span: the note's spans are its children. */
  private void traced(JobRecord job, CompletableFuture<Void> cancellation) {
    try (JobSpans.Run traced = spans.run(job.id(), job.attempts(), job.traceparent())) {
      run(job, cancellation, traced);
    }
  }

  private void run(JobRecord job, CompletableFuture<Void> cancellation, JobSpans.Run traced) {
    SpooledAudio audio = null;
    try {
      audio = readBack(job);
      if (audio == null) {
        traced.ended(Outcome.FAILED);
        return;
      }
      NoteRequest request =
          new NoteRequest(
              new Device(job.device()),
              audio,
              SettingFields.of(JobFields.of(job.fields())),
              null,
              job.claimedDurationMs() == null
                  ? OptionalLong.empty()
                  : OptionalLong.of(job.claimedDurationMs()),
              null,
              job.id());
      switch (intake.acceptUploaded(request)) {
        case Intake.Acceptance.Refused refused ->
            traced.ended(
                failed(
                    job,
                    new WorkResult.Refused(
                        Problem.INTERNAL, "the job's settings are no longer usable")));
        case Intake.Acceptance.Accepted accepted -> {
          Transcriber.Answer answer = transcriber.transcribe(accepted.note(), cancellation);
          traced.ended(
              cancellation.isDone() ? Outcome.CANCELLED : answered(job, accepted.note(), answer));
        }
      }
    } catch (InterruptedException e) {
      // The gateway is closing: the job stays queued for the next run or another instance.
      Thread.currentThread().interrupt();
      traced.ended(Outcome.STOPPED);
    } catch (RuntimeException | IOException e) {
      log.error("job {} could not be run", job.id(), e);
      traced.ended(
          failed(
              job,
              new WorkResult.Refused(Problem.INTERNAL, "internal error; the job was not run")));
    } finally {
      if (audio != null) {
        audio.close();
      }
      running.remove(job.id());
      slots.release();
      poke();
    }
  }

  /** The job's note read back from the database into the spool; null when it is unusable. */
  private @Nullable SpooledAudio readBack(JobRecord job) throws IOException {
    Path file = spool.resolve(job.id() + ".note");
    Files.createDirectories(spool);
    try (OutputStream out = Files.newOutputStream(file)) {
      store.copyAudio(job.id(), out);
    }
    return switch (PartialNote.open(file, job.audioBytes()).finish(() -> {})) {
      case PartialNote.Finished.Note note -> {
        if (note.audio().sha256().equals(job.audioSha256())) {
          yield note.audio();
        }
        note.audio().close();
        failed(job, new WorkResult.Refused(Problem.INTERNAL, "the job's stored note is damaged"));
        yield null;
      }
      case PartialNote.Finished.Unusable unusable -> {
        Files.deleteIfExists(file);
        failed(job, new WorkResult.Refused(Problem.INVALID_AUDIO, unusable.why().message()));
        yield null;
      }
    };
  }

  /** Ends or requeues the job as {@code answer} says; how its run ended, for its span. */
  private Outcome answered(JobRecord job, Transcriber.Note note, Transcriber.Answer answer) {
    if (closed) {
      // Answers made by the gateway's closing (its work interrupted) are no job's end.
      return Outcome.STOPPED;
    }
    switch (answer.outcome()) {
      case WorkResult.Success success -> {
        end(
            job.id(),
            new JobStore.Ending(
                JobStatus.SUCCEEDED,
                rendering.result(
                    success.transcript(), note.settings(), answer.replayed(), job.id()),
                null,
                success.transcript().durationMs()));
        return Outcome.SUCCEEDED;
      }
      case WorkResult.Refused refused -> {
        if (JobRetries.isTransient(refused.problem())) {
          int attempts =
              store.requeue(
                  job.id(), owner, clock.instant().plus(JobRetries.pauseAfter(job.attempts())));
          // Taken again later unless it had its attempts (or it is no longer this instance's).
          if (attempts > 0 && attempts < JobRetries.MAX_ATTEMPTS) {
            log.info(
                "job {} queued again after attempt {}: {}", job.id(), attempts, refused.message());
            return Outcome.RETRIED;
          }
        }
        return failed(job, refused);
      }
    }
  }

  /** Ends the job failed, unless the gateway is closing; how its run ended, for its span. */
  private Outcome failed(JobRecord job, WorkResult.Refused refused) {
    if (closed) {
      return Outcome.STOPPED;
    }
    end(
        job.id(),
        new JobStore.Ending(JobStatus.FAILED, null, rendering.error(refused, job.id()), null));
    return Outcome.FAILED;
  }

  /**
   * Stops taking jobs; the jobs running here are left to the next start of this slot or, once their
   * leases lapse, to another instance.
   */
  @Override
  public void close() {
    closed = true;
    Thread running = loop;
    if (running != null) {
      running.interrupt();
    }
  }
}
