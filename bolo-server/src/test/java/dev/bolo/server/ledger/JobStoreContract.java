package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs' tables on each database: notes stored in pieces and read back whole, the same job for
 * the same Idempotency-Key, the device's bounds, one instance per job at a time (leases), an ended
 * job's event written with its end and only then, the retention.
 */
abstract class JobStoreContract {

  private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");
  private static final JobStore.Bounds ROOMY = new JobStore.Bounds(100, 1L << 30);

  @TempDir Path dataDir;
  final MutableClock clock = MutableClock.at(START);
  final AtomicLong ticker = new AtomicLong();
  @Nullable DurableLedger ledger;
  private int made;

  /** A JDBC URL of a fresh, empty database for one test; null for the embedded file database. */
  abstract @Nullable String freshDatabaseUrl() throws SQLException;

  @BeforeEach
  void open() throws SQLException {
    ledger =
        Ledger.jdbc(
            LedgerConfig.embedded(dataDir).withJdbcUrl(freshDatabaseUrl()),
            new LedgerTime(clock, ticker::get, System::nanoTime));
    ledger.add(new Device("alpha"));
    ledger.add(new Device("bravo"));
  }

  @AfterEach
  void close() {
    if (ledger != null) {
      ledger.close();
    }
  }

  private JobStore jobs() {
    return java.util.Objects.requireNonNull(ledger).jobs();
  }

  private JobRecord job(String device, long bytes, @Nullable String key, @Nullable String url) {
    return job(device, bytes, key, url, null);
  }

  private JobRecord job(
      String device,
      long bytes,
      @Nullable String key,
      @Nullable String url,
      @Nullable String traceparent) {
    made++;
    return JobRecord.queued(
        "job_" + made,
        device,
        "{}",
        "%064d".formatted(made),
        bytes,
        null,
        key,
        url,
        "{}",
        START.plusMillis(made),
        traceparent);
  }

  private JobStore.Creation create(JobRecord job, byte[] note, JobStore.Bounds bounds) {
    return jobs().create(job, new ByteArrayInputStream(note), bounds);
  }

  @Test
  void aNoteLargerThanOnePieceIsReadBackWhole() {
    byte[] note = new byte[JobStore.CHUNK_BYTES * 2 + 12_345];
    new Random(7).nextBytes(note);
    JobRecord job = job("alpha", note.length, null, null);
    assertThat(create(job, note, ROOMY)).isInstanceOf(JobStore.Creation.Created.class);

    ByteArrayOutputStream back = new ByteArrayOutputStream();
    jobs().copyAudio(job.id(), back);

    assertThat(back.toByteArray()).isEqualTo(note);
    assertThat(jobs().find(job.id())).contains(job);
  }

  @Test
  void theSameIdempotencyKeyOfTheSameDeviceFindsTheJobItMade() {
    JobRecord first = job("alpha", 4, "key", null);
    create(first, new byte[4], ROOMY);

    assertThat(create(job("alpha", 4, "key", null), new byte[4], ROOMY))
        .isEqualTo(new JobStore.Creation.Existing(first));
    assertThat(create(job("bravo", 4, "key", null), new byte[4], ROOMY))
        .isInstanceOf(JobStore.Creation.Created.class);
  }

  @Test
  void aDevicesWaitingJobsAndTheirBytesAreBoundedButNotItsEndedOnes() {
    JobStore.Bounds bounds = new JobStore.Bounds(2, 10);
    assertThat(create(job("alpha", 4, null, null), new byte[4], bounds))
        .isInstanceOf(JobStore.Creation.Created.class);
    assertThat(create(job("alpha", 7, null, null), new byte[7], bounds))
        .isInstanceOf(JobStore.Creation.Full.class);
    JobRecord second = job("alpha", 6, null, null);
    assertThat(create(second, new byte[6], bounds)).isInstanceOf(JobStore.Creation.Created.class);
    assertThat(create(job("alpha", 1, null, null), new byte[1], bounds))
        .isInstanceOf(JobStore.Creation.Full.class);
    assertThat(create(job("bravo", 4, null, null), new byte[4], bounds))
        .isInstanceOf(JobStore.Creation.Created.class);

    jobs().finish(second.id(), cancelled(), START, ended -> Optional.empty());

    assertThat(create(job("alpha", 6, null, null), new byte[6], bounds))
        .isInstanceOf(JobStore.Creation.Created.class);
  }

  @Test
  void aJobIsClaimedByOneInstanceUntilItsLeaseLapsesOrItsOwnerFreesIt() {
    JobRecord job = job("alpha", 4, null, null);
    create(job, new byte[4], ROOMY);
    Instant until = START.plusSeconds(60);

    assertThat(jobs().claim("slot-a", START, until))
        .map(JobRecord::status)
        .contains(JobStatus.RUNNING);
    assertThat(jobs().claim("slot-b", START.plusSeconds(59), until)).isEmpty();
    assertThat(jobs().renew(job.id(), "slot-b", until)).isFalse();
    assertThat(jobs().claim("slot-b", START.plusSeconds(61), START.plusSeconds(121)))
        .map(JobRecord::id)
        .contains(job.id());
    assertThat(jobs().renew(job.id(), "slot-a", until)).isFalse();
    assertThat(jobs().freeLeasesOf("slot-b")).isEqualTo(1);
    assertThat(jobs().claim("slot-a", START.plusSeconds(62), START.plusSeconds(122))).isPresent();
  }

  @Test
  void twoInstancesClaimingAtOnceNeverTakeTheSameJob() throws Exception {
    int count = 20;
    for (int i = 0; i < count; i++) {
      create(job(i % 2 == 0 ? "alpha" : "bravo", 4, null, null), new byte[4], ROOMY);
    }
    Set<String> claimed = ConcurrentHashMap.newKeySet();
    List<String> twice = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> instances = new ArrayList<>();
    for (String slot : List.of("slot-a", "slot-b", "slot-c")) {
      instances.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    Optional<JobRecord> next;
                    while ((next = jobs().claim(slot, START, START.plusSeconds(60))).isPresent()) {
                      if (!claimed.add(next.get().id())) {
                        synchronized (twice) {
                          twice.add(next.get().id());
                        }
                      }
                    }
                  }));
    }
    go.countDown();
    for (Thread instance : instances) {
      instance.join(Duration.ofSeconds(60));
    }

    assertThat(claimed).hasSize(count);
    assertThat(twice).isEmpty();
  }

  @Test
  void aJobAndItsEventKeepTheTraceTheyWereMadeIn() {
    String submitted = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    String ended = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    JobRecord job = job("alpha", 4, null, "https://receiver.test/hook", submitted);
    create(job, new byte[4], ROOMY);
    assertThat(create(job("alpha", 4, null, null), new byte[4], ROOMY))
        .isInstanceOf(JobStore.Creation.Created.class);

    JobRecord claimed = jobs().claim("slot-a", START, START.plusSeconds(60)).orElseThrow();
    assertThat(claimed.id()).isEqualTo(job.id());
    assertThat(claimed.traceparent())
        .as("the run links to it after a restart")
        .isEqualTo(submitted);
    assertThat(jobs().claim("slot-a", START, START.plusSeconds(60)).orElseThrow().traceparent())
        .as("an untraced job")
        .isNull();
    jobs()
        .finish(
            job.id(),
            cancelled(),
            START,
            done -> event(done, "msg_traced").map(e -> withTrace(e, ended)));

    assertThat(java.util.Objects.requireNonNull(ledger).webhookOutbox().due(START, 10))
        .singleElement()
        .satisfies(e -> assertThat(e.traceparent()).isEqualTo(ended));
  }

  private static WebhookOutbox.Event withTrace(WebhookOutbox.Event e, String traceparent) {
    return new WebhookOutbox.Event(
        e.id(),
        e.jobId(),
        e.device(),
        e.url(),
        e.type(),
        e.body(),
        e.attempts(),
        e.createdAt(),
        e.nextAttemptAt(),
        traceparent);
  }

  @Test
  void anEndedJobsEventIsWrittenWithItsEndAndAJobEndsOnce() {
    JobRecord job = job("alpha", 4, null, "https://receiver.test/hook");
    create(job, new byte[4], ROOMY);
    JobStore.Ending ending =
        new JobStore.Ending(JobStatus.SUCCEEDED, "{\"text\":\"hi\"}", null, 900L);

    Optional<JobRecord> ended =
        jobs().finish(job.id(), ending, START, done -> event(done, "msg_1"));
    Optional<JobRecord> again =
        jobs().finish(job.id(), cancelled(), START, done -> event(done, "msg_2"));

    assertThat(ended).map(JobRecord::status).contains(JobStatus.SUCCEEDED);
    assertThat(ended).map(JobRecord::durationMs).contains(900L);
    assertThat(again).isEmpty();
    WebhookOutbox outbox = java.util.Objects.requireNonNull(ledger).webhookOutbox();
    assertThat(outbox.due(START, 10)).extracting(WebhookOutbox.Event::id).containsExactly("msg_1");
    assertThat(outbox.pending()).isEqualTo(1);
    ByteArrayOutputStream note = new ByteArrayOutputStream();
    jobs().copyAudio(job.id(), note);
    assertThat(note.size()).as("an ended job's note is dropped").isZero();
  }

  @Test
  void jobsMadeBeforeTheCutoffGoWithTheirNotesAndEvents() {
    JobRecord old = job("alpha", 4, null, "https://receiver.test/hook");
    create(old, new byte[4], ROOMY);
    jobs().finish(old.id(), cancelled(), START, done -> event(done, "msg_old"));
    JobRecord waiting = job("alpha", 4, null, null);
    create(waiting, new byte[4], ROOMY);

    assertThat(jobs().deleteMadeBefore(waiting.createdAt())).isEqualTo(1);

    assertThat(jobs().find(old.id())).isEmpty();
    assertThat(java.util.Objects.requireNonNull(ledger).webhookOutbox().state("msg_old")).isEmpty();
    assertThat(jobs().find(waiting.id())).isPresent();
    assertThat(jobs().list("alpha", null, null, 10))
        .extracting(JobRecord::id)
        .containsExactly(waiting.id());
  }

  @Test
  void aDevicesJobsAreListedNewestFirstPageByPage() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      JobRecord job = job("alpha", 1, null, null);
      create(job, new byte[1], ROOMY);
      ids.add(0, job.id());
    }
    create(job("bravo", 1, null, null), new byte[1], ROOMY);

    List<JobRecord> first = jobs().list("alpha", null, null, 2);
    List<JobRecord> second = jobs().list("alpha", null, first.getLast(), 2);

    assertThat(first).extracting(JobRecord::id).containsExactlyElementsOf(ids.subList(0, 2));
    assertThat(second).extracting(JobRecord::id).containsExactlyElementsOf(ids.subList(2, 4));
    assertThat(jobs().list("alpha", JobStatus.SUCCEEDED, null, 10)).isEmpty();
  }

  private static JobStore.Ending cancelled() {
    return new JobStore.Ending(JobStatus.CANCELLED, null, null, null);
  }

  private static Optional<WebhookOutbox.Event> event(JobRecord ended, String id) {
    return Optional.of(
        new WebhookOutbox.Event(
            id,
            ended.id(),
            ended.device(),
            java.util.Objects.requireNonNull(ended.webhookUrl()),
            "job." + ended.status().wireName(),
            "{}",
            0,
            START,
            START,
            null));
  }
}
