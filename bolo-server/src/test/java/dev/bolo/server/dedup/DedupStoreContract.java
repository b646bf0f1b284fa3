package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link DedupStore} must do, run against each implementation with real threads.
 *
 * <p>Time: a subclass either drives the store's clock ({@link #letTimePass} advances a fake ticker)
 * or lets real time pass while a test awaits a condition with a bound ({@link #eventually}); with
 * real time the leases and TTLs a subclass chooses are short.
 */
abstract class DedupStoreContract {

  /** Long enough never to lapse during a test. */
  static final Duration LONG_LEASE = Duration.ofSeconds(30);

  static final Duration LONG_TTL = Duration.ofMinutes(5);

  /** Bound on every wait for another thread or for time to pass: generous for a busy machine. */
  static final Duration PATIENCE = Duration.ofSeconds(15);

  private static final HexFormat HEX = HexFormat.of();

  /** Coordinators sharing one store in the concurrency tests, as gateway instances do. */
  private static final int INSTANCES = 4;

  /** Unseeded: keys only need to differ, also between tests sharing one Redis. */
  private final Random random = new Random();

  private final List<DedupStore> stores = new ArrayList<>();
  protected final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Runnable> cleanups = new ArrayList<>();

  /** A new store over the shared state that this test uses (a new instance for Redis). */
  protected abstract DedupStore newStore(Duration ttl);

  /** Moves the stores' clock forward; with real time, nothing (the wait itself lets it pass). */
  protected abstract void letTimePass(Duration duration);

  /** A lease short enough to watch it lapse in a test. */
  protected abstract Duration shortLease();

  /** A TTL short enough to watch it lapse in a test. */
  protected abstract Duration shortTtl();

  protected final DedupStore store(Duration ttl) {
    return closeAfterTest(newStore(ttl));
  }

  protected final <T extends DedupStore> T closeAfterTest(T store) {
    stores.add(store);
    return store;
  }

  @AfterEach
  void closeStores() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    cleanups.forEach(Runnable::run);
    stores.forEach(DedupStore::close);
  }

  @Test
  void exactlyOneOfManyConcurrentClaimersOwnsTheWork() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    int claimers = 16;
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Claim>> claims = new ArrayList<>();
    for (int i = 0; i < claimers; i++) {
      claims.add(
          threads.submit(
              () -> {
                start.await();
                return store.claim(key, LONG_LEASE);
              }));
    }
    start.countDown();
    List<Claim> answers = new ArrayList<>();
    for (Future<Claim> claim : claims) {
      answers.add(claim.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    }
    assertThat(answers).filteredOn(Claim.Owned.class::isInstance).hasSize(1);
    assertThat(answers).filteredOn(Claim.Busy.class::isInstance).hasSize(claimers - 1);
  }

  @Test
  void aCompletedTranscriptIsReplayedToLaterClaimers() {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned owner = owned(store.claim(key, LONG_LEASE));
    KeptTranscript transcript = transcriptFor(key, "hello from the first copy");

    assertThat(store.complete(key, owner, transcript)).isTrue();

    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  @Test
  void completionWakesEveryWaiterWithTheTranscript() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned owner = owned(store.claim(key, LONG_LEASE));
    List<Future<Resolution>> waiters = startWaiters(store, key, 8);

    KeptTranscript transcript = transcriptFor(key, "everyone gets this");
    assertThat(store.complete(key, owner, transcript)).isTrue();

    for (Future<Resolution> waiter : waiters) {
      assertThat(waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(new Resolution.Completed(transcript));
    }
  }

  @Test
  void failureWakesEveryWaiterWithTheRefusalAndLeavesTheKeyVacant() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned owner = owned(store.claim(key, LONG_LEASE));
    List<Future<Resolution>> waiters = startWaiters(store, key, 8);

    WorkResult.Refused refusal =
        new WorkResult.Refused(
            Problem.UPSTREAM_UNAVAILABLE, "engine overloaded: 503", Duration.ofSeconds(7));
    store.fail(key, owner, refusal);

    for (Future<Resolution> waiter : waiters) {
      assertThat(waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(new Resolution.Failed(refusal));
    }
    // Only successes are kept: the next copy runs afresh.
    Claim.Owned next = owned(store.claim(key, LONG_LEASE));
    assertThat(next.token()).isNotEqualTo(owner.token());
  }

  @Test
  void aWaiterArrivingJustAfterAFailureStillGetsTheRefusalUntilTheKeyIsClaimedAgain()
      throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned owner = owned(store.claim(key, LONG_LEASE));
    WorkResult.Refused refusal = new WorkResult.Refused(Problem.UPSTREAM_ERROR, "bad gateway: 502");
    store.fail(key, owner, refusal);

    assertThat(store.await(key, PATIENCE)).isEqualTo(new Resolution.Failed(refusal));

    owned(store.claim(key, LONG_LEASE));
    assertThat(store.await(key, Duration.ofMillis(50))).isEqualTo(new Resolution.Pending());
  }

  @Test
  void onlyTheOwnerCanCompleteFailOrRenew() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned owner = owned(store.claim(key, LONG_LEASE));
    Claim.Owned stranger = new Claim.Owned("not-the-owners-token");

    assertThat(store.complete(key, stranger, transcriptFor(key, "forged"))).isFalse();
    store.fail(key, stranger, new WorkResult.Refused(Problem.UPSTREAM_ERROR, "forged failure"));
    assertThat(store.renew(key, stranger, LONG_LEASE)).isFalse();

    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
    assertThat(store.await(key, Duration.ofMillis(50))).isEqualTo(new Resolution.Pending());
    KeptTranscript real = transcriptFor(key, "the real one");
    assertThat(store.complete(key, owner, real)).isTrue();
    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(real));
  }

  @Test
  void anOwnerWhoseClaimTheStoreForgotTakesItAgainOnRenewalAndStillStoresItsResult() {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    // A claim the store no longer holds, as after a Redis restart without persistence.
    Claim.Owned forgotten = new Claim.Owned("claim-from-before-the-restart");

    assertThat(store.renew(key, forgotten, LONG_LEASE)).isTrue();
    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
    KeptTranscript transcript = transcriptFor(key, "kept across the restart");
    assertThat(store.complete(key, forgotten, transcript)).isTrue();

    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  @Test
  void aLateOwnerNeverOverwritesAStoredResult() {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned first = owned(store.claim(key, LONG_LEASE));
    KeptTranscript stored = transcriptFor(key, "first result");
    assertThat(store.complete(key, first, stored)).isTrue();

    Claim.Owned late = new Claim.Owned("an-owner-that-lost-its-lease");
    assertThat(store.complete(key, late, transcriptFor(key, "late result"))).isFalse();
    assertThat(store.renew(key, late, LONG_LEASE)).isFalse();

    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(stored));
  }

  @Test
  void anExpiredLeaseLetsAnotherClaimerTakeOverAndWakesWaiters() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned vanished = owned(store.claim(key, LONG_LEASE));
    Future<Resolution> waiter = startWaiterOn(store, key);
    // The owner's last renewal: its lease runs out only once the waiter waits on its work.
    assertThat(store.renew(key, vanished, shortLease())).isTrue();

    letTimePass(shortLease().multipliedBy(2));
    Claim[] takeover = new Claim[1];
    eventually(
        "another claimer owns the work after the lease",
        () -> (takeover[0] = store.claim(key, LONG_LEASE)) instanceof Claim.Owned);

    assertThat(waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo(new Resolution.Vacant());
    // The vanished owner comes back too late: its result must not overwrite the new owner's.
    assertThat(store.renew(key, vanished, LONG_LEASE)).isFalse();
    assertThat(store.complete(key, vanished, transcriptFor(key, "late"))).isFalse();
    KeptTranscript fresh = transcriptFor(key, "fresh");
    assertThat(store.complete(key, owned(takeover[0]), fresh)).isTrue();
    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(fresh));
  }

  @Test
  void awaitingWorkWhoseLeaseExpiredAnswersVacant() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    owned(store.claim(key, shortLease()));

    letTimePass(shortLease().multipliedBy(2));

    assertThat(store.await(key, PATIENCE)).isEqualTo(new Resolution.Vacant());
  }

  @Test
  void renewingKeepsTheClaimPastItsFirstLease() {
    DedupStore store = store(LONG_TTL);
    WorkKey renewed = newKey();
    WorkKey abandoned = newKey();
    Claim.Owned owner = owned(store.claim(renewed, shortLease()));
    owned(store.claim(abandoned, shortLease()));

    assertThat(store.renew(renewed, owner, LONG_LEASE)).isTrue();

    letTimePass(shortLease().multipliedBy(2));
    // The abandoned claim with the same first lease lapsing proves that lease has run out.
    eventually(
        "the abandoned claim lapses",
        () -> store.claim(abandoned, LONG_LEASE) instanceof Claim.Owned);
    assertThat(store.claim(renewed, LONG_LEASE)).isEqualTo(new Claim.Busy());
    assertThat(store.complete(renewed, owner, transcriptFor(renewed, "kept"))).isTrue();
  }

  @Test
  void completedTranscriptsExpireAfterTheTtl() {
    DedupStore store = store(shortTtl());
    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "short-lived");
    assertThat(store.complete(key, owned(store.claim(key, LONG_LEASE)), transcript)).isTrue();
    assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));

    letTimePass(shortTtl().multipliedBy(2));

    eventually("the transcript expires", () -> store.claim(key, LONG_LEASE) instanceof Claim.Owned);
  }

  @Test
  void anIdempotencyKeyIsBoundToOneWorkPerDevice() {
    DedupStore store = store(LONG_TTL);
    WorkKey work = newKey("phone-1");
    WorkKey otherWork = newKey("phone-1");
    String idempotencyKey = "8e03978e-40d5-43e8-bc93-6894a57f9324";

    assertThat(store.bindIdempotencyKey("phone-1", idempotencyKey, work))
        .isEqualTo(IdempotencyCheck.BOUND);
    assertThat(store.bindIdempotencyKey("phone-1", idempotencyKey, work))
        .isEqualTo(IdempotencyCheck.SAME_WORK);
    assertThat(store.bindIdempotencyKey("phone-1", idempotencyKey, otherWork))
        .isEqualTo(IdempotencyCheck.OTHER_WORK);

    // Another device's key of the same spelling is its own.
    assertThat(store.bindIdempotencyKey("phone-2", idempotencyKey, newKey("phone-2")))
        .isEqualTo(IdempotencyCheck.BOUND);
    // Device and key are kept apart: ("a:b", "c") is not ("a", "b:c").
    assertThat(store.bindIdempotencyKey("a:b", "c", newKey("a:b")))
        .isEqualTo(IdempotencyCheck.BOUND);
    assertThat(store.bindIdempotencyKey("a", "b:c", newKey("a"))).isEqualTo(IdempotencyCheck.BOUND);
  }

  @Test
  void anIdempotencyKeyIsForgottenAfterTheTtl() {
    DedupStore store = store(shortTtl());
    WorkKey work = newKey("phone-1");
    String idempotencyKey = "key-" + random.nextLong();
    assertThat(store.bindIdempotencyKey("phone-1", idempotencyKey, work))
        .isEqualTo(IdempotencyCheck.BOUND);

    letTimePass(shortTtl().multipliedBy(2));

    WorkKey later = newKey("phone-1");
    eventually(
        "the idempotency key expires",
        () -> store.bindIdempotencyKey("phone-1", idempotencyKey, later) == IdempotencyCheck.BOUND);
  }

  @Test
  void awaitingAnUnknownKeyAnswersVacantAtOnce() throws InterruptedException {
    DedupStore store = store(LONG_TTL);

    assertThat(store.await(newKey(), PATIENCE)).isEqualTo(new Resolution.Vacant());
  }

  @Test
  void awaitingRunningWorkAnswersPendingWhenTheWaitRunsOut() throws InterruptedException {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    owned(store.claim(key, LONG_LEASE));

    assertThat(store.await(key, Duration.ofMillis(100))).isEqualTo(new Resolution.Pending());
  }

  @Test
  void aStoredTranscriptKeepsEveryField() throws InterruptedException {
    DedupStore store = store(LONG_TTL);
    WorkKey plain = newKey();
    WorkKey formatted = newKey();
    KeptTranscript withoutBody =
        new KeptTranscript(
            Transcript.plain("Grüße, \"quoted\" — ünïcödé ✓\nline two"),
            "openai",
            0,
            false,
            plain.audioSha256(),
            plain.settingsFingerprint());
    KeptTranscript withBody =
        new KeptTranscript(
            new Transcript(
                "one\ntwo",
                List.of(
                    new Transcript.Segment(0, 1_000, " one"),
                    new Transcript.Segment(1_000, 61_234, "two")),
                List.of(new Transcript.Word("one", 0, 900)),
                "english",
                OptionalLong.of(61_200),
                new Transcript.Answered(ResponseFormat.VERBOSE_JSON, "{\"text\":\"one\\ntwo\"}")),
            "gemini",
            61_234,
            true,
            formatted.audioSha256(),
            formatted.settingsFingerprint(),
            "{\"type\":\"tokens\",\"input_tokens\":14,\"total_tokens\":19}",
            "gemini-2.5-flash");

    assertThat(store.complete(plain, owned(store.claim(plain, LONG_LEASE)), withoutBody)).isTrue();
    Claim.Owned owner = owned(store.claim(formatted, LONG_LEASE));
    Future<Resolution> waiter = threads.submit(() -> store.await(formatted, PATIENCE));
    assertThat(store.complete(formatted, owner, withBody)).isTrue();

    assertThat(store.claim(plain, LONG_LEASE)).isEqualTo(new Claim.Completed(withoutBody));
    assertThat(store.claim(formatted, LONG_LEASE)).isEqualTo(new Claim.Completed(withBody));
    assertThat(store.await(plain, PATIENCE)).isEqualTo(new Resolution.Completed(withoutBody));
    assertThat(waitFor(waiter)).isEqualTo(new Resolution.Completed(withBody));
  }

  @Test
  void aRefusalWithoutRetryAfterKeepsEveryField() throws Exception {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned owner = owned(store.claim(key, LONG_LEASE));
    Future<Resolution> waiter = threads.submit(() -> store.await(key, PATIENCE));
    WorkResult.Refused refusal =
        new WorkResult.Refused(Problem.UPSTREAM_REJECTED, "invalid file format: \"x.ogg\" ✗");

    store.fail(key, owner, refusal);

    assertThat(waitFor(waiter)).isEqualTo(new Resolution.Failed(refusal));
  }

  @Test
  void sixteenConcurrentCopiesRunTheWorkOnceAndFifteenReplayIt() throws Exception {
    WatchedStore store = new WatchedStore(store(LONG_TTL));
    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "transcribed once");
    CountedWork work = new CountedWork(store, INSTANCES - 1, new WorkResult.Success(transcript));

    List<WorkCoordinator.Served> served = serveConcurrently(store, key, 16, work);

    assertThat(work.calls()).isEqualTo(1);
    assertThat(served)
        .extracting(WorkCoordinator.Served::outcome)
        .containsOnly(new WorkResult.Success(transcript));
    assertThat(served).filteredOn(WorkCoordinator.Served::replayed).hasSize(15);
    // A later resend replays the stored transcript without running the work.
    WorkCoordinator.Served resend = coordinator(store).serve(key, PATIENCE, work);
    assertThat(resend)
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(transcript), Replay.CACHED));
    assertThat(work.calls()).isEqualTo(1);
  }

  @Test
  void aFailureGoesToEveryWaitingCopyAndTheNextCopyRunsAfresh() throws Exception {
    WatchedStore store = new WatchedStore(store(LONG_TTL));
    WorkKey key = newKey();
    WorkResult.Refused refusal =
        new WorkResult.Refused(Problem.UPSTREAM_UNAVAILABLE, "overloaded", Duration.ofSeconds(3));
    CountedWork failing = new CountedWork(store, INSTANCES - 1, refusal);

    List<WorkCoordinator.Served> served = serveConcurrently(store, key, 16, failing);

    assertThat(failing.calls()).isEqualTo(1);
    assertThat(served).extracting(WorkCoordinator.Served::outcome).containsOnly(refusal);
    assertThat(served).filteredOn(WorkCoordinator.Served::replayed).hasSize(15);

    KeptTranscript transcript = transcriptFor(key, "second time lucky");
    CountedWork succeeding = new CountedWork(store, 0, new WorkResult.Success(transcript));
    WorkCoordinator.Served next = coordinator(store).serve(key, PATIENCE, succeeding);
    assertThat(next)
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(transcript), false));
    assertThat(succeeding.calls()).isEqualTo(1);
  }

  /**
   * Serves {@code copies} copies at once, spread round robin over {@link #INSTANCES} coordinators
   * on the same store, as over gateway instances: copies on one instance meet in its in-flight map,
   * instances meet in the store.
   */
  private List<WorkCoordinator.Served> serveConcurrently(
      DedupStore store, WorkKey key, int copies, CountedWork work) throws Exception {
    List<WorkCoordinator> instances = new ArrayList<>();
    for (int i = 0; i < INSTANCES; i++) {
      instances.add(coordinator(store));
    }
    CountDownLatch start = new CountDownLatch(1);
    List<Future<WorkCoordinator.Served>> futures = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      WorkCoordinator coordinator = instances.get(i % INSTANCES);
      futures.add(
          threads.submit(
              () -> {
                start.await();
                return coordinator.serve(key, PATIENCE, work);
              }));
    }
    // Every copy waits before the work ends, so none comes late and runs it afresh.
    work.holdUntil(() -> instances.stream().mapToInt(c -> c.copiesWaiting(key)).sum() == copies);
    start.countDown();
    List<WorkCoordinator.Served> served = new ArrayList<>();
    for (Future<WorkCoordinator.Served> future : futures) {
      served.add(waitFor(future));
    }
    return served;
  }

  private WorkCoordinator coordinator(DedupStore store) {
    return new WorkCoordinator(
        store, threads, renewals(), System::nanoTime, Thread::sleep, Duration.ofSeconds(3));
  }

  private ScheduledExecutorService renewals() {
    var renewals = Executors.newSingleThreadScheduledExecutor();
    cleanups.add(renewals::shutdownNow);
    return renewals;
  }

  /** Counts how often the store answered {@link Claim.Busy}: copies that now wait. */
  static class WatchedStore implements DedupStore {
    private final DedupStore delegate;
    private final AtomicInteger busy = new AtomicInteger();

    WatchedStore(DedupStore delegate) {
      this.delegate = delegate;
    }

    int busyAnswers() {
      return busy.get();
    }

    @Override
    public Claim claim(WorkKey key, Duration lease) {
      Claim claim = delegate.claim(key, lease);
      if (claim instanceof Claim.Busy) {
        busy.incrementAndGet();
      }
      return claim;
    }

    @Override
    public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
      return delegate.renew(key, owner, lease);
    }

    @Override
    public boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
      return delegate.complete(key, owner, transcript);
    }

    @Override
    public void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal) {
      delegate.fail(key, owner, refusal);
    }

    @Override
    public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
      return delegate.await(key, timeout);
    }

    @Override
    public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
      return delegate.bindIdempotencyKey(device, idempotencyKey, key);
    }

    @Override
    public long generation() {
      return delegate.generation();
    }
  }

  /**
   * Fake work: counts its calls and holds its outcome back until {@code duplicates} copies (other
   * instances) have been told the work is busy and every copy waits, so they all wait on this one
   * call.
   */
  static final class CountedWork implements Supplier<WorkResult> {
    private final WatchedStore store;
    private final int duplicates;
    private final WorkResult outcome;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile BooleanSupplier allWaiting = () -> true;

    CountedWork(WatchedStore store, int duplicates, WorkResult outcome) {
      this.store = store;
      this.duplicates = duplicates;
      this.outcome = outcome;
    }

    int calls() {
      return calls.get();
    }

    void holdUntil(BooleanSupplier condition) {
      this.allWaiting = condition;
    }

    @Override
    public WorkResult get() {
      calls.incrementAndGet();
      eventually(duplicates + " instances wait", () -> store.busyAnswers() >= duplicates);
      eventually("every copy waits", allWaiting);
      return outcome;
    }
  }

  // ---------------------------------------------------------------- helpers

  protected final WorkKey newKey() {
    return newKey("phone-" + random.nextInt(1000));
  }

  protected final WorkKey newKey(String device) {
    return new WorkKey(device, randomHex(), randomHex());
  }

  private String randomHex() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return HEX.formatHex(bytes);
  }

  static KeptTranscript transcriptFor(WorkKey key, String text) {
    return new KeptTranscript(
        Transcript.plain(text),
        "offline",
        1_500,
        true,
        key.audioSha256(),
        key.settingsFingerprint());
  }

  static Claim.Owned owned(Claim claim) {
    assertThat(claim).isInstanceOf(Claim.Owned.class);
    return (Claim.Owned) claim;
  }

  private List<Future<Resolution>> startWaiters(DedupStore store, WorkKey key, int count) {
    List<Future<Resolution>> waiters = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Callable<Resolution> wait = () -> store.await(key, PATIENCE);
      waiters.add(threads.submit(wait));
    }
    return waiters;
  }

  /**
   * Starts one waiter and returns once its thread is about to wait; a store answers {@link #await}
   * right away unless the work is live, so the caller must keep it live until then.
   */
  private Future<Resolution> startWaiterOn(DedupStore store, WorkKey key) throws Exception {
    CountDownLatch waiting = new CountDownLatch(1);
    Thread[] waiterThread = new Thread[1];
    Future<Resolution> waiter =
        threads.submit(
            () -> {
              // Warm the waiting path, so the real wait below starts without delay.
              store.await(newKey(), Duration.ofMillis(1));
              waiterThread[0] = Thread.currentThread();
              waiting.countDown();
              return store.await(key, PATIENCE);
            });
    assertThat(waiting.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    // The latch opens just before the wait: make sure the waiter is blocked in it, or a busy
    // machine lets the test move on while the waiter has not yet looked at the key.
    eventually(
        "the waiter blocks on the key",
        () -> {
          Thread.State state = waiterThread[0].getState();
          return state == Thread.State.TIMED_WAITING || state == Thread.State.WAITING;
        });
    return waiter;
  }

  static <T> T waitFor(Future<T> future) {
    try {
      return future.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no answer within " + PATIENCE, e);
    }
  }

  /**
   * Serves work on {@code key} through {@code coordinator} on one of {@code threads}: the work runs
   * {@code started}, holds until {@code release} opens, and succeeds with {@code text}.
   */
  static Future<WorkCoordinator.Served> heldWork(
      ExecutorService threads,
      WorkCoordinator coordinator,
      WorkKey key,
      Runnable started,
      CountDownLatch release,
      String text) {
    return threads.submit(
        () ->
            coordinator.serve(
                key,
                PATIENCE,
                () -> {
                  started.run();
                  await(release);
                  return new WorkResult.Success(transcriptFor(key, text));
                }));
  }

  /** Waits for {@code latch} to open, failing after the patience. */
  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("latch not opened within " + PATIENCE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits, with a bound, until {@code condition} holds; fails the test otherwise. */
  static void eventually(String what, BooleanSupplier condition) {
    try {
      Await.until(PATIENCE, what, condition);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting until " + what, e);
    }
  }
}
