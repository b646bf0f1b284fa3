package dev.bolo.server.dedup;

import static dev.bolo.server.dedup.DedupStoreContract.PATIENCE;
import static dev.bolo.server.dedup.DedupStoreContract.await;
import static dev.bolo.server.dedup.DedupStoreContract.eventually;
import static dev.bolo.server.dedup.DedupStoreContract.heldWork;
import static dev.bolo.server.dedup.DedupStoreContract.transcriptFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The coordinator's own guarantees: in-process coalescing, completion on any throwable, leases. */
class WorkCoordinatorTest {

  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final SweepTimer renewals = new SweepTimer();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
    renewals.shutdownNow();
  }

  @Test
  void
      aWorkThatThrowsStackOverflowErrorAnswersEveryWaitingCopyWithAnInternalErrorWithinItsDeadline()
          throws Exception {
    DedupStore store = DedupStore.inMemory(System::nanoTime, Duration.ofMinutes(5), 1_000_000);
    WorkCoordinator coordinator = coordinator(store, System::nanoTime, Duration.ofSeconds(3));
    WorkKey key = newKey();
    Duration deadline = Duration.ofSeconds(5);
    CountDownLatch allWaiting = new CountDownLatch(1);
    List<Future<WorkCoordinator.Served>> copies = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      copies.add(
          threads.submit(
              () ->
                  coordinator.serve(
                      key,
                      deadline,
                      () -> {
                        await(allWaiting);
                        throw new StackOverflowError("deep recursion in an engine");
                      })));
    }
    eventually("four copies wait", () -> coordinator.copiesWaiting(key) == 4);
    allWaiting.countDown();

    for (Future<WorkCoordinator.Served> copy : copies) {
      WorkCoordinator.Served served = copy.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
      // The gateway's fault, told without the exception.
      assertThat(served.outcome())
          .isEqualTo(
              new WorkResult.Refused(
                  Problem.INTERNAL, "internal error; the note was not transcribed"));
    }
    // The failure freed the key: the next copy runs afresh.
    KeptTranscript transcript = transcriptFor(key, "second try");
    assertThat(coordinator.serve(key, deadline, () -> new WorkResult.Success(transcript)))
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(transcript), false));
  }

  @Test
  void aCopyWaitsNoLongerThanItsDeadlineForWorkThatHangs() throws Exception {
    DedupStore store = DedupStore.inMemory(System::nanoTime, Duration.ofMinutes(5), 1_000_000);
    WorkCoordinator coordinator = coordinator(store, System::nanoTime, Duration.ofSeconds(3));
    WorkKey key = newKey();
    CountDownLatch never = new CountDownLatch(1);

    WorkCoordinator.Served served =
        coordinator.serve(
            key,
            Duration.ofMillis(200),
            () -> {
              await(never);
              return new WorkResult.Success(transcriptFor(key, "too late"));
            });

    assertThat(served.outcome())
        .isInstanceOfSatisfying(
            WorkResult.Refused.class,
            r -> assertThat(r.problem()).isEqualTo(Problem.UPSTREAM_TIMEOUT));
  }

  @Test
  void aCopyServedLaterTimesOutAloneAndIsAnsweredOnAThreadOfItsOwnWithItsCallersContext()
      throws Exception {
    DedupStore store = DedupStore.inMemory(System::nanoTime, Duration.ofMinutes(5), 1_000_000);
    WorkCoordinator coordinator = coordinator(store, System::nanoTime, Duration.ofSeconds(3));
    WorkKey key = newKey();
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Thread> worker = new AtomicReference<>();
    Supplier<WorkResult> work =
        () -> {
          worker.set(Thread.currentThread());
          await(release);
          return new WorkResult.Success(transcriptFor(key, "later"));
        };
    MDC.put("request_id", "impatient");
    CompletableFuture<WorkCoordinator.Served> impatient =
        coordinator.serveLater(key, Duration.ofMillis(200), work);
    MDC.put("request_id", "patient");
    CompletableFuture<WorkCoordinator.Served> patient =
        coordinator.serveLater(key, Duration.ofSeconds(10), work);
    MDC.remove("request_id");
    // Stages added before the answer run where it is delivered, with the copy's own context.
    CompletableFuture<String> whereAnswered =
        patient.thenApply(served -> Thread.currentThread().getName() + " " + MDC.get("request_id"));

    // The impatient copy's deadline ends its own wait, not the shared work's.
    assertThat(impatient.get(5, TimeUnit.SECONDS).outcome())
        .isInstanceOfSatisfying(
            WorkResult.Refused.class,
            r -> assertThat(r.problem()).isEqualTo(Problem.UPSTREAM_TIMEOUT));
    assertThat(patient).isNotDone();
    eventually("one copy still waits", () -> coordinator.copiesWaiting(key) == 1);

    release.countDown();
    // Waited for first: a thread waiting in patient.get() helps run patient's stages when it
    // wakes, so on a busy machine this test's own thread could take the stage.
    assertThat(whereAnswered.get(5, TimeUnit.SECONDS)).isEqualTo("bolo-answer patient");
    assertThat(patient.get(5, TimeUnit.SECONDS))
        .isEqualTo(
            new WorkCoordinator.Served(
                new WorkResult.Success(transcriptFor(key, "later")), Replay.JOINED));
    assertThat(worker.get().getName()).isNotEqualTo("bolo-answer");
    eventually("no copy waits", () -> coordinator.copiesWaiting(key) == 0);
  }

  @Test
  void copiesOnOneInstanceAskTheStoreOnceWhateverItAnswers() throws Exception {
    CountingStore store =
        new CountingStore(DedupStore.inMemory(System::nanoTime, Duration.ofMinutes(5), 1_000_000));
    WorkCoordinator coordinator = coordinator(store, System::nanoTime, Duration.ofSeconds(3));
    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "once");
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch allWaiting = new CountDownLatch(1);
    List<Future<WorkCoordinator.Served>> copies = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      copies.add(
          threads.submit(
              () ->
                  coordinator.serve(
                      key,
                      PATIENCE,
                      () -> {
                        runs.incrementAndGet();
                        await(allWaiting);
                        return new WorkResult.Success(transcript);
                      })));
    }
    eventually("sixteen copies wait", () -> coordinator.copiesWaiting(key) == 16);
    allWaiting.countDown();

    int replayed = 0;
    for (Future<WorkCoordinator.Served> copy : copies) {
      WorkCoordinator.Served served = copy.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(served.outcome()).isEqualTo(new WorkResult.Success(transcript));
      replayed += served.replayed() ? 1 : 0;
    }
    assertThat(runs).hasValue(1);
    assertThat(replayed).isEqualTo(15);
    assertThat(store.claims).hasValue(1);
  }

  @Test
  void aLeaseIsRenewedOnceAThirdOfItHasPassedAndNeverAfterItsWorkEnded() throws Exception {
    AtomicLong nanos = new AtomicLong();
    Duration lease = Duration.ofSeconds(15);
    CountingStore store =
        new CountingStore(DedupStore.inMemory(nanos::get, Duration.ofMinutes(5), 1_000_000));
    WorkCoordinator coordinator = coordinator(store, nanos::get, lease);
    WorkKey key = newKey();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<WorkCoordinator.Served> work =
        heldWork(threads, coordinator, key, started::countDown, finish, "done");
    // The work runs once its lease is in the sweep's list, whose clock starts then (at 0 here).
    await(started);

    // Sweeps come every 200 ms; the lease is renewed only once 5 s (a third) have passed.
    nanos.addAndGet(Duration.ofMillis(4_900).toNanos());
    renewals.awaitSweeps(2);
    assertThat(store.renewalsOf(key)).isZero();
    nanos.addAndGet(Duration.ofMillis(100).toNanos());
    // The ticker stands still from here: only the moment just reached can be why it is renewed.
    eventually("the lease is renewed", () -> store.renewalsOf(key) == 1);
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    renewals.awaitSweeps(2);
    assertThat(store.renewalsOf(key)).isOne();

    finish.countDown();
    assertThat(work.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).outcome())
        .isInstanceOf(WorkResult.Success.class);
    nanos.addAndGet(lease.toNanos());
    renewals.awaitSweeps(2);
    assertThat(store.renewalsOf(key)).isOne();
  }

  @Test
  void aRenewalThatHangsInTheStoreDelaysNoOtherLease() throws Exception {
    WorkKey stuck = newKey();
    CountDownLatch unstick = new CountDownLatch(1);
    CountingStore store =
        new CountingStore(DedupStore.inMemory(System::nanoTime, Duration.ofMinutes(5), 1_000_000)) {
          @Override
          public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
            if (key.equals(stuck)) {
              DedupStoreContract.await(unstick);
            }
            return super.renew(key, owner, lease);
          }
        };
    Duration lease = Duration.ofMillis(90);
    WorkCoordinator coordinator = coordinator(store, System::nanoTime, lease);
    List<WorkKey> others = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      others.add(newKey());
    }
    CountDownLatch finish = new CountDownLatch(1);
    List<Future<WorkCoordinator.Served>> works = new ArrayList<>();
    for (WorkKey key : concat(stuck, others)) {
      works.add(serveOnceOpened(coordinator, key, finish));
    }

    // Renewed every 30 ms: each other lease is renewed again and again while one hangs.
    eventually(
        "every other lease is renewed three times",
        () -> others.stream().allMatch(key -> store.renewalsOf(key) >= 3));
    assertThat(store.renewalsOf(stuck)).isZero();
    unstick.countDown();
    finish.countDown();
    for (Future<WorkCoordinator.Served> work : works) {
      assertThat(work.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).outcome())
          .isInstanceOf(WorkResult.Success.class);
    }
  }

  @Test
  void anOwnerWhoseRenewalsStallPastTheLeaseLosesItAndDoesNotOverwriteTheNewOwnersResult()
      throws Exception {
    DedupStore shared = DedupStore.inMemory(System::nanoTime, Duration.ofMinutes(5), 1_000_000);
    CountDownLatch renewalsResume = new CountDownLatch(1);
    // Instance A's store calls for renewals hang, as on a Redis that stopped answering it.
    DedupStore stalled =
        new DedupStoreContract.WatchedStore(shared) {
          @Override
          public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
            DedupStoreContract.await(renewalsResume);
            return super.renew(key, owner, lease);
          }
        };
    Duration lease = Duration.ofMillis(300);
    WorkCoordinator a = coordinator(stalled, System::nanoTime, lease);
    WorkCoordinator b = coordinator(shared, System::nanoTime, lease);
    WorkKey key = newKey();
    CountDownLatch aFinishes = new CountDownLatch(1);
    CountDownLatch aRuns = new CountDownLatch(1);
    KeptTranscript fromA = transcriptFor(key, "from the owner that lost its lease");
    KeptTranscript fromB = transcriptFor(key, "from the owner that took over");

    Future<WorkCoordinator.Served> onA =
        threads.submit(
            () ->
                a.serve(
                    key,
                    PATIENCE,
                    () -> {
                      aRuns.countDown();
                      await(aFinishes);
                      return new WorkResult.Success(fromA);
                    }));
    await(aRuns);
    // B waits for A's claim, sees it lapse, and runs the note itself.
    WorkCoordinator.Served onB = b.serve(key, PATIENCE, () -> new WorkResult.Success(fromB));
    assertThat(onB).isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(fromB), false));

    try (LogCapture log = LogCapture.start()) {
      aFinishes.countDown();
      renewalsResume.countDown();

      assertThat(onA.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).outcome())
          .isEqualTo(new WorkResult.Success(fromA));
      assertThat(shared.claim(key, lease)).isEqualTo(new Claim.Completed(fromB));
      // The store answers and another owner held the key: the loss is the operator's to know.
      eventually(
          "the lost claim is logged",
          () -> log.text().contains("lost the claim on " + key.asString()));
    }
  }

  @Test
  void aWaiterTrustsAnotherInstancesClaimForALeaseAfterTheStoreLostSightOfIt() throws Exception {
    AtomicLong nanos = new AtomicLong();
    Duration lease = Duration.ofSeconds(15);
    ForgetfulStore store = new ForgetfulStore();
    WorkCoordinator coordinator = coordinator(store, nanos::get, lease);
    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "run here after all");

    Future<WorkCoordinator.Served> copy =
        threads.submit(
            () ->
                coordinator.serve(
                    key, Duration.ofMinutes(5), () -> new WorkResult.Success(transcript)));

    // Another instance held the claim, then the store restarted and forgot it: keep polling.
    eventually("the copy polls the forgetful store", () -> store.awaits.get() >= 3);
    assertThat(store.claims).hasValue(1);
    nanos.addAndGet(lease.minusSeconds(1).toNanos());
    int polled = store.awaits.get();
    eventually("the copy still polls", () -> store.awaits.get() >= polled + 2);
    assertThat(store.claims).hasValue(1);

    // The claim would have expired by now: run the note here.
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());

    assertThat(copy.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(transcript), false));
    assertThat(store.claims).hasValue(2);
  }

  @Test
  void aClaimIsTrustedForALeaseAfterTheStoreLostSightOfItNotAfterItWasLastSeen() throws Exception {
    // Last seen at 0 s; the owner renews it until the store forgets it at 10 s.
    LostClaim lost = aCopyThatLosesSightOfAClaimAt(Duration.ofSeconds(10));

    // 20 s: a lease after it was last seen, half a lease after it was lost: keep waiting.
    lost.at(Duration.ofSeconds(20)).stillPolls();

    // 26 s: the claim would have lapsed by now even if its owner lived: run the note here.
    lost.at(Duration.ofSeconds(26)).runsTheNote();
  }

  @Test
  void aStoreBackBeforeTheLeaseRunsOutKeepsTheClaimTrustedUntilThenAndNoLonger() throws Exception {
    LostClaim lost = aCopyThatLosesSightOfAClaimAt(Duration.ZERO);

    // Back at 14.5 s, the claim not yet taken back: it may still be running until 15 s.
    lost.at(Duration.ofMillis(14_500)).store().comeBack();
    lost.at(Duration.ofMillis(14_900)).stillPolls();

    // Past the lease: the key is claimed afresh. Whether the owner may still take it back is the
    // store's rule (a Redis that lost its data makes such a claim tentative), not a wait here.
    lost.at(Duration.ofMillis(15_010)).runsTheNote();
  }

  @Test
  void aStoreStillUnreachableWhenTheLeaseRunsOutRunsTheNoteThen() throws Exception {
    aCopyThatLosesSightOfAClaimAt(Duration.ZERO).at(Duration.ofMillis(15_010)).runsTheNote();
  }

  /** A copy on this instance, another instance's claim, a store that lost sight of it. */
  private record LostClaim(
      AtomicLong nanos, VanishingStore store, Future<WorkCoordinator.Served> copy) {

    LostClaim at(Duration time) {
      nanos.set(time.toNanos());
      return this;
    }

    void stillPolls() {
      int polled = store.vacant.get();
      eventually("the copy still polls", () -> store.vacant.get() >= polled + 2);
      assertThat(store.runs).hasValue(0);
    }

    void runsTheNote() throws Exception {
      assertThat(copy.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).replayed()).isFalse();
      assertThat(store.runs).hasValue(1);
    }
  }

  /**
   * A copy that saw another instance's claim alive at 0 s and a store (lease 15 s) that lost sight
   * of it at {@code lostAt}, unreachable since.
   */
  private LostClaim aCopyThatLosesSightOfAClaimAt(Duration lostAt) {
    AtomicLong nanos = new AtomicLong();
    VanishingStore store = new VanishingStore();
    WorkCoordinator coordinator = coordinator(store, nanos::get, Duration.ofSeconds(15));
    Future<WorkCoordinator.Served> copy = serveCountingRuns(coordinator, newKey(), store);
    eventually("the copy sees the claim alive", () -> store.pending.get() >= 2);
    nanos.set(lostAt.toNanos());
    store.forget(true);
    eventually("the copy polls the store that lost sight of it", () -> store.vacant.get() >= 2);
    return new LostClaim(nanos, store, copy);
  }

  private Future<WorkCoordinator.Served> serveCountingRuns(
      WorkCoordinator coordinator, WorkKey key, VanishingStore store) {
    return threads.submit(
        () ->
            coordinator.serve(
                key,
                Duration.ofMinutes(5),
                () -> {
                  store.runs.incrementAndGet();
                  return new WorkResult.Success(transcriptFor(key, "run here after all"));
                }));
  }

  @Test
  void aWaiterThatLostSightOfAClaimReplaysTheResultWrittenBackAfterTheOutage() throws Exception {
    AtomicLong nanos = new AtomicLong();
    ForgetfulStore store = new ForgetfulStore();
    WorkCoordinator coordinator = coordinator(store, nanos::get, Duration.ofSeconds(15));
    WorkKey key = newKey();
    AtomicInteger runs = new AtomicInteger();

    Future<WorkCoordinator.Served> copy =
        threads.submit(
            () ->
                coordinator.serve(
                    key,
                    Duration.ofMinutes(5),
                    () -> {
                      runs.incrementAndGet();
                      return new WorkResult.Success(transcriptFor(key, "a second run"));
                    }));
    eventually("the copy polls the forgetful store", () -> store.awaits.get() >= 3);

    KeptTranscript written = transcriptFor(key, "the owner's result, written back");
    store.writtenBack = written;

    assertThat(copy.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(written), true));
    assertThat(runs).hasValue(0);
  }

  /**
   * A shared store as one instance sees it across a restart: the first claim finds another
   * instance's claim; then the store has forgotten it (a new generation) and answers vacant, or the
   * result once it was written back.
   */
  private static final class ForgetfulStore extends AgreeableStore {
    final AtomicInteger claims = new AtomicInteger();
    final AtomicInteger awaits = new AtomicInteger();
    volatile @org.jspecify.annotations.Nullable KeptTranscript writtenBack;

    @Override
    public Claim claim(WorkKey key, Duration lease) {
      return claims.incrementAndGet() == 1
          ? new Claim.Busy()
          : new Claim.Owned("after-the-claim-expired");
    }

    @Override
    public long generation() {
      return awaits.get() == 0 ? 0 : 1;
    }

    @Override
    public Resolution await(WorkKey key, Duration timeout) {
      awaits.incrementAndGet();
      KeptTranscript done = writtenBack;
      return done != null ? new Resolution.Completed(done) : new Resolution.Vacant();
    }
  }

  /**
   * A shared store as one instance sees another instance's claim: alive until {@link #forget} (a
   * restart or an outage: a new generation, degraded or not), then vacant; after {@link #comeBack}
   * reachable again, and the claim is the first asker's once vacant.
   */
  private static final class VanishingStore extends AgreeableStore {
    final AtomicInteger pending = new AtomicInteger();
    final AtomicInteger vacant = new AtomicInteger();
    final AtomicInteger runs = new AtomicInteger();
    private final AtomicLong generation = new AtomicLong();
    private volatile boolean visible = true;
    private volatile boolean degraded;

    void forget(boolean unreachable) {
      visible = false;
      degraded = unreachable;
      generation.incrementAndGet();
    }

    void comeBack() {
      degraded = false;
      generation.incrementAndGet();
    }

    @Override
    public long generation() {
      return generation.get();
    }

    @Override
    public boolean isDegraded() {
      return degraded;
    }

    @Override
    public Claim claim(WorkKey key, Duration lease) {
      return visible ? new Claim.Busy() : new Claim.Owned("the claim after it lapsed");
    }

    @Override
    public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
      // A store's wait takes a moment, as Redis's does; without it the copy would spin.
      Thread.sleep(5);
      if (visible) {
        pending.incrementAndGet();
        return new Resolution.Pending();
      }
      vacant.incrementAndGet();
      return new Resolution.Vacant();
    }
  }

  /** A shared store that takes every renewal, result and key it is given, keeping nothing. */
  private abstract static class AgreeableStore implements DedupStore {
    @Override
    public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
      return true;
    }

    @Override
    public boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
      return true;
    }

    @Override
    public void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal) {}

    @Override
    public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
      return IdempotencyCheck.BOUND;
    }
  }

  /**
   * The coordinators' timer, which runs nothing but their sweeps: counts the sweeps it has run, so
   * that a test waits for sweeps rather than for the time they take.
   */
  private static final class SweepTimer extends ScheduledThreadPoolExecutor {
    private final AtomicInteger sweeps = new AtomicInteger();

    SweepTimer() {
      super(1);
    }

    @Override
    protected void afterExecute(Runnable sweep, Throwable thrown) {
      super.afterExecute(sweep, thrown);
      sweeps.incrementAndGet();
    }

    /**
     * Returns once {@code count} whole sweeps have run since this call (one more than that ends, as
     * the one running now may have read the ticker before the test moved it).
     */
    void awaitSweeps(int count) {
      int seen = sweeps.get();
      eventually(count + " sweeps", () -> sweeps.get() > seen + count);
    }
  }

  /** Counts claims and renewals per key. */
  private static class CountingStore extends DedupStoreContract.WatchedStore {
    final AtomicInteger claims = new AtomicInteger();
    private final Map<WorkKey, AtomicInteger> renewals = new ConcurrentHashMap<>();

    CountingStore(DedupStore delegate) {
      super(delegate);
    }

    int renewalsOf(WorkKey key) {
      AtomicInteger count = renewals.get(key);
      return count == null ? 0 : count.get();
    }

    @Override
    public Claim claim(WorkKey key, Duration lease) {
      claims.incrementAndGet();
      return super.claim(key, lease);
    }

    @Override
    public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
      boolean renewed = super.renew(key, owner, lease);
      renewals.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      return renewed;
    }
  }

  private WorkCoordinator coordinator(
      DedupStore store, java.util.function.LongSupplier ticker, Duration lease) {
    return new WorkCoordinator(store, threads, renewals, ticker, Thread::sleep, lease);
  }

  private static List<WorkKey> concat(WorkKey first, List<WorkKey> rest) {
    List<WorkKey> all = new ArrayList<>(List.of(first));
    all.addAll(rest);
    return all;
  }

  /** Serves {@code key} on another thread with work that succeeds once {@code finish} opens. */
  private Future<WorkCoordinator.Served> serveOnceOpened(
      WorkCoordinator coordinator, WorkKey key, CountDownLatch finish) {
    return heldWork(threads, coordinator, key, () -> {}, finish, "done");
  }

  private static WorkKey newKey() {
    byte[] a = new byte[32];
    byte[] b = new byte[32];
    ThreadLocalRandom.current().nextBytes(a);
    ThreadLocalRandom.current().nextBytes(b);
    return new WorkKey("phone-1", HexFormat.of().formatHex(a), HexFormat.of().formatHex(b));
  }
}
