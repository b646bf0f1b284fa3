package dev.bolo.server.dedup;

import static dev.bolo.server.dedup.DedupStoreContract.LONG_LEASE;
import static dev.bolo.server.dedup.DedupStoreContract.LONG_TTL;
import static dev.bolo.server.dedup.DedupStoreContract.PATIENCE;
import static dev.bolo.server.dedup.DedupStoreContract.eventually;
import static dev.bolo.server.dedup.DedupStoreContract.heldWork;
import static dev.bolo.server.dedup.DedupStoreContract.owned;
import static dev.bolo.server.dedup.DedupStoreContract.transcriptFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.lettuce.core.RedisConnectionException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Redis store behind its fail-open wrapper, with Redis stopped and started under it. */
class FailOpenDedupStoreTest {

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor();
  private EmbeddedRedis redis = EmbeddedRedis.notStarted();
  private final List<DedupStore> instances = new ArrayList<>();

  @BeforeEach
  void startRedis() {
    redis.startAgain();
  }

  @AfterEach
  void stopEverything() throws InterruptedException {
    threads.shutdownNow();
    renewals.shutdownNow();
    assertThat(threads.awaitTermination(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    instances.forEach(DedupStore::close);
    redis.close();
  }

  /** A gateway instance's store: the wrapper over Redis, probing every 100 ms. */
  private DedupStore instance() {
    return instance(Duration.ofMillis(100));
  }

  private DedupStore instance(Duration probeEvery) {
    DedupStore store =
        FailOpenDedupStore.overRedis(
            RedisDedupStoreTest.options(redis.url(), LONG_TTL),
            1_000_000,
            probeEvery,
            System::nanoTime,
            System::nanoTime);
    instances.add(store);
    return store;
  }

  @Test
  void aRedisBackFromAnOutageIsUsedAgainAtTheOutagesPaceNotAtTheHealthyProbesPace()
      throws Exception {
    // A healthy Redis is pinged once a day here: only the tries made every RETRY_WHILE_DOWN
    // while it is away can find it back within the test.
    DedupStore store = instance(Duration.ofDays(1));
    redis.stop();
    store.claim(newKey(), LONG_LEASE);
    assertThat(store.isDegraded()).isTrue();

    redis.startAgain();

    eventually("the instance recovers", () -> !store.isDegraded());
  }

  @Test
  void theGenerationChangesWhenRedisGoesAndWhenItComesBackNotWithEveryFailedTry() throws Exception {
    // The probe tries Redis again by asking its readiness: each such question is counted.
    AtomicInteger tries = new AtomicInteger();
    RedisDedupStore.Options options = RedisDedupStoreTest.options(redis.url(), LONG_TTL);
    DedupStore store =
        new FailOpenDedupStore(
            onDrop ->
                countingReadiness(
                    RedisDedupStore.connect(options, System::nanoTime, onDrop), tries),
            "redis under test",
            DedupStore.inMemory(System::nanoTime, LONG_TTL, 1_000_000),
            new WriteBehind(WriteBehind.MAX_ENTRIES, 1_000_000, LONG_TTL, System::nanoTime),
            Duration.ofMillis(100),
            System::nanoTime);
    instances.add(store);
    long healthy = store.generation();
    redis.stop();
    store.claim(newKey(), LONG_LEASE);
    long down = store.generation();
    assertThat(down).isGreaterThan(healthy);

    // Ten failed tries, counted as they happen: none tells anyone.
    int triedBefore = tries.get();
    eventually("ten more tries while Redis is down", () -> tries.get() >= triedBefore + 10);
    assertThat(store.generation()).as("while Redis stays down").isEqualTo(down);

    redis.startAgain();
    eventually("the instance recovers", () -> !store.isDegraded());
    assertThat(store.generation()).isGreaterThan(down);
  }

  @Test
  void aConnectionDropReportedAfterARequestFoundTheOutageChangesNothingMore() {
    AtomicBoolean down = new AtomicBoolean();
    AtomicReference<Runnable> dropped = new AtomicReference<>();
    DedupStore memory = DedupStore.inMemory(System::nanoTime, LONG_TTL, 1_000_000);
    DedupStore fake =
        (DedupStore)
            Proxy.newProxyInstance(
                DedupStore.class.getClassLoader(),
                new Class<?>[] {DedupStore.class},
                (proxy, method, args) -> {
                  if (down.get() && !method.getName().equals("close")) {
                    throw new RedisConnectionException("connection refused");
                  }
                  try {
                    return method.invoke(memory, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    DedupStore store =
        new FailOpenDedupStore(
            onDrop -> {
              dropped.set(onDrop);
              return fake;
            },
            "fake redis",
            DedupStore.inMemory(System::nanoTime, LONG_TTL, 1_000_000),
            new WriteBehind(WriteBehind.MAX_ENTRIES, 1_000_000, LONG_TTL, System::nanoTime),
            Duration.ofMinutes(1),
            System::nanoTime);
    instances.add(store);

    // A drop while healthy: waiters must look again.
    long healthy = store.generation();
    dropped.get().run();
    assertThat(store.generation()).isEqualTo(healthy + 1);

    // Lettuce reports the drop only after a request has found the outage.
    down.set(true);
    store.claim(newKey(), LONG_LEASE);
    long degraded = store.generation();
    assertThat(degraded).isEqualTo(healthy + 2);
    dropped.get().run();
    assertThat(store.generation()).isEqualTo(degraded);

    // Back: the probe's recovery is the change waiters and owners act on.
    down.set(false);
    eventually("the store recovers", () -> !store.isDegraded());
    assertThat(store.generation()).isGreaterThan(degraded);
  }

  @Test
  void uploadsKeepWorkingWhileRedisIsDownAndDeduplicationAcrossInstancesResumesAfterwards()
      throws Exception {
    DedupStore first = instance();
    DedupStore second = instance();
    assertThat(first.isDegraded()).isFalse();
    assertThat(first.readiness().state()).isEqualTo(Readiness.State.READY);
    assertSharedAcrossInstances(first, second);

    redis.stop();

    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "transcribed during the outage");
    AtomicInteger calls = new AtomicInteger();
    WorkCoordinator coordinator = coordinator(first);
    WorkCoordinator.Served served =
        coordinator.serve(
            key,
            PATIENCE,
            () -> {
              calls.incrementAndGet();
              return new WorkResult.Success(transcript);
            });
    assertThat(served)
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(transcript), false));
    assertThat(first.isDegraded()).isTrue();
    assertThat(first.readiness().state()).isEqualTo(Readiness.State.DEGRADED);
    assertThat(first.readiness().detail())
        .contains("redis 127.0.0.1:" + redis.port())
        .contains("unreachable")
        .contains("this instance only");
    // The local fallback still de-duplicates on this instance.
    WorkCoordinator.Served resend =
        coordinator.serve(key, PATIENCE, () -> new WorkResult.Success(transcriptFor(key, "again")));
    assertThat(resend)
        .isEqualTo(new WorkCoordinator.Served(new WorkResult.Success(transcript), Replay.CACHED));
    assertThat(calls).hasValue(1);
    eventually("the idle instance notices the outage too", second::isDegraded);

    redis.startAgain();

    eventually("both instances recover", () -> !first.isDegraded() && !second.isDegraded());
    assertThat(first.readiness().state()).isEqualTo(Readiness.State.READY);
    assertSharedAcrossInstances(first, second);
  }

  @Test
  void anInstanceStartedWhileRedisIsDownServesLocallyAndJoinsRedisWhenItAppears() {
    redis.stop();

    DedupStore first = instance();

    assertThat(first.isDegraded()).isTrue();
    assertThat(first.readiness().state()).isEqualTo(Readiness.State.DEGRADED);
    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "local");
    assertThat(first.complete(key, owned(first.claim(key, LONG_LEASE)), transcript)).isTrue();
    assertThat(first.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));

    redis.startAgain();

    eventually("the instance recovers", () -> !first.isDegraded());
    DedupStore second = instance();
    assertSharedAcrossInstances(first, second);
  }

  @Test
  void workClaimedInRedisBeforeAnOutageEndsAndIsReplayedOnThisInstance() {
    DedupStore first = instance();
    WorkKey key = newKey();
    Claim.Owned owner = owned(first.claim(key, LONG_LEASE));

    redis.stop();

    KeptTranscript transcript = transcriptFor(key, "finished while Redis was away");
    assertThat(first.complete(key, owner, transcript)).isTrue();
    assertThat(first.isDegraded()).isTrue();
    assertThat(first.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  @Test
  void anIdempotencyKeyIsStillCheckedWhileRedisIsDown() {
    DedupStore first = instance();
    redis.stop();
    WorkKey work = newKey();

    assertThat(first.bindIdempotencyKey("phone-1", "k1", work)).isEqualTo(IdempotencyCheck.BOUND);
    assertThat(first.bindIdempotencyKey("phone-1", "k1", newKey()))
        .isEqualTo(IdempotencyCheck.OTHER_WORK);
    assertThat(first.isDegraded()).isTrue();
  }

  @Test
  void aResultFinishedWhileRedisIsDownIsWrittenToRedisWhenItReturns() {
    DedupStore owner = instance();
    WorkKey key = newKey();
    Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));

    redis.stop();
    KeptTranscript transcript = transcriptFor(key, "finished during the outage");
    assertThat(owner.complete(key, claim, transcript)).isTrue();
    assertThat(owner.pendingWrites()).isEqualTo(1);

    redis.startAgain();

    eventually("the kept result is written", () -> owner.pendingWrites() == 0);
    DedupStore other = instance();
    assertThat(other.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  @Test
  void workRunLocallyDuringAnOutageIsWrittenToRedisAfterwards() {
    DedupStore first = instance();
    redis.stop();
    WorkKey key = newKey();
    Claim.Owned local = owned(first.claim(key, LONG_LEASE));
    KeptTranscript transcript = transcriptFor(key, "run on this instance alone");
    assertThat(first.complete(key, local, transcript)).isTrue();

    redis.startAgain();

    eventually("the local result is written", () -> first.pendingWrites() == 0);
    assertThat(instance().claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  @Test
  void anOwnerWhoseClaimARedisRestartForgotTakesItBackSoOtherInstancesKeepWaiting() {
    DedupStore owner = instance();
    WorkKey key = newKey();
    Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));
    long before = owner.generation();

    redis.stop();
    redis.startAgain();

    eventually(
        "the owner's next renewal succeeds on the restarted Redis",
        () -> owner.renew(key, claim, LONG_LEASE));
    assertThat(owner.generation()).as("the restart is visible to waiters").isGreaterThan(before);
    DedupStore other = instance();
    assertThat(other.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
  }

  @Test
  void anOwnerTakesItsClaimBackSoonAfterARestartNotAThirdOfALeaseLater() throws Exception {
    DedupStore ownerStore = instance();
    // A lease renewed every 20 minutes: only the restart can explain a renewal within the test.
    WorkCoordinator owner =
        new WorkCoordinator(
            ownerStore, threads, renewals, System::nanoTime, Thread::sleep, Duration.ofHours(1));
    WorkKey key = newKey();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    Future<WorkCoordinator.Served> running =
        heldWork(threads, owner, key, calls::incrementAndGet, release, "still mine");
    eventually("the owner runs the work", () -> calls.get() == 1);

    redis.stop();
    redis.startAgain();

    DedupStore other = instance();
    // Looked at without claiming: a claim taken here would make the check pass by itself.
    eventually(
        "the claim is back in Redis", () -> awaitBriefly(other, key) instanceof Resolution.Pending);
    assertThat(other.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
    release.countDown();
    assertThat(DedupStoreContract.waitFor(running).outcome())
        .isInstanceOf(WorkResult.Success.class);
  }

  @Test
  void aWaiterOnAnotherInstanceRidesOutARedisRestartAndReplaysTheOwnersResult() throws Exception {
    DedupStore ownerStore = instance();
    DedupStore waiterStore = instance();
    // The waiter trusts the claim it lost sight of for a lease: one far longer than a restart and
    // the owner's result take to reach Redis on a busy machine (with 3 s, beside two CPU hogs the
    // waiter sometimes gave up first and ran the note itself).
    WorkCoordinator owner =
        new WorkCoordinator(
            ownerStore, threads, renewals, System::nanoTime, Thread::sleep, LONG_LEASE);
    WorkCoordinator waiter =
        new WorkCoordinator(
            waiterStore, threads, renewals, System::nanoTime, Thread::sleep, LONG_LEASE);
    WorkKey key = newKey();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    java.util.function.Supplier<WorkResult> work =
        () -> {
          calls.incrementAndGet();
          try {
            release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return new WorkResult.Success(transcriptFor(key, "transcribed once"));
        };
    Future<WorkCoordinator.Served> first = threads.submit(() -> owner.serve(key, PATIENCE, work));
    eventually("the owner runs the work", () -> calls.get() == 1);
    Future<WorkCoordinator.Served> second = threads.submit(() -> waiter.serve(key, PATIENCE, work));
    eventually("the other instance waits", () -> waiter.copiesWaiting(key) == 1);

    redis.stop();
    redis.startAgain();
    release.countDown();

    assertThat(DedupStoreContract.waitFor(first).outcome()).isInstanceOf(WorkResult.Success.class);
    WorkCoordinator.Served replayed = DedupStoreContract.waitFor(second);
    assertThat(replayed.replayed()).isTrue();
    assertThat(replayed.outcome()).isEqualTo(DedupStoreContract.waitFor(first).outcome());
    assertThat(calls).hasValue(1);
  }

  @Test
  void aCopyArrivingRightAfterARestartWaitsForAnOwnerThatTakesItsClaimBackLate() throws Exception {
    // The owner's machine is busy: after the restart, its renewals reach Redis 2 s late, later
    // than any fixed grace period a copy could wait. The lease is 3 s.
    AtomicBoolean busyMachine = new AtomicBoolean();
    AtomicInteger lateRenewals = new AtomicInteger();
    DedupStore ownerStore =
        slowToRenew(instance(), busyMachine, Duration.ofSeconds(2), lateRenewals);
    DedupStore otherStore = instance();
    WorkCoordinator owner = coordinator(ownerStore);
    WorkCoordinator other = coordinator(otherStore);
    WorkKey key = newKey();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ownerRuns = new AtomicInteger();
    AtomicInteger otherRuns = new AtomicInteger();
    Future<WorkCoordinator.Served> first =
        heldWork(threads, owner, key, ownerRuns::incrementAndGet, release, "the owner's run");
    eventually("the owner runs the work", () -> ownerRuns.get() == 1);

    busyMachine.set(true);
    redis.stop();
    redis.startAgain();
    // A copy reaches the other instance the moment Redis answers again: the key is vacant.
    eventually("the other instance uses Redis again", () -> !otherStore.isDegraded());
    Future<WorkCoordinator.Served> copy =
        threads.submit(
            () ->
                other.serve(
                    key,
                    PATIENCE,
                    () -> {
                      otherRuns.incrementAndGet();
                      return new WorkResult.Success(transcriptFor(key, "a second run"));
                    }));
    eventually("the owner takes its claim back, 2 s late", () -> lateRenewals.get() > 0);
    release.countDown();

    WorkResult result = DedupStoreContract.waitFor(first).outcome();
    assertThat(result).isInstanceOf(WorkResult.Success.class);
    assertThat(DedupStoreContract.waitFor(copy).outcome()).isEqualTo(result);
    assertThat(otherRuns).as("runs on the other instance").hasValue(0);
  }

  @Test
  @Timeout(60)
  void aNoteFirstSeenAfterARestartWaitsOutOneLeaseThenRunsOnce() throws Exception {
    DedupStore store = instance();
    store.claim(newKey(), LONG_LEASE);
    redis.stop();
    long restarting = System.nanoTime();
    redis.startAgain();

    // Nobody held this key; nobody can know that: the claim waits until the lease is over. (A
    // claim the instance makes before it finds Redis back is served locally: try until one is not.)
    Duration lease = Duration.ofSeconds(2);
    Claim.Owned claim;
    do {
      claim = owned(store.claim(newKey(), lease));
    } while (ClaimSide.isLocal(claim));
    Duration sinceRestart = Duration.ofNanos(System.nanoTime() - restarting);

    // The restarted Redis counts the lease from the first call that found it without its data,
    // after the restart: a lower bound, which a busy machine only lengthens (Redis's clock reads
    // milliseconds).
    assertThat(sinceRestart).isGreaterThanOrEqualTo(lease.minusMillis(10));
    // From then on, claims are immediate again: not another lease of waiting. (A claim on
    // loopback takes about a millisecond; a load that stretched it to a lease would stop Redis.)
    long after = System.nanoTime();
    assertThat(store.claim(newKey(), lease)).isInstanceOf(Claim.Owned.class);
    assertThat(Duration.ofNanos(System.nanoTime() - after)).isLessThan(lease);
  }

  @Test
  // A bound on a hang: a first claim made to wait would wait out its hour-long lease.
  @Timeout(60)
  void aFreshRedisDoesNotMakeTheFirstClaimsWait() {
    DedupStore store = instance();
    assertThat(store.claim(newKey(), Duration.ofHours(1))).isInstanceOf(Claim.Owned.class);
    assertThat(instance().claim(newKey(), Duration.ofHours(1))).isInstanceOf(Claim.Owned.class);
  }

  @Test
  void anOutageUnderRunningWorkIsLoggedOnceAsItBeginsNotAsEveryLeaseLostAtEachRenewal()
      throws Exception {
    AtomicInteger renewals = new AtomicInteger();
    DedupStore store = countingCalls(instance(), "renew", renewals);
    WorkCoordinator coordinator = coordinator(store);
    WorkKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch finish = new CountDownLatch(1);
    try (LogCapture log = LogCapture.start()) {
      Future<WorkCoordinator.Served> work =
          heldWork(threads, coordinator, key, runs::incrementAndGet, finish, "mine");
      eventually("the work runs", () -> runs.get() == 1);
      redis.stop();
      // Renewed every second (a third of the coordinator's 3 s lease), each refused by the
      // fail-open store while Redis is away.
      int before = renewals.get();
      eventually(
          "three renewals during the outage",
          () -> store.isDegraded() && renewals.get() >= before + 3);
      finish.countDown();
      assertThat(work.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).outcome())
          .isInstanceOf(WorkResult.Success.class);

      assertThat(log.text()).doesNotContain("lost the claim");
      String unreachable = ":" + redis.port() + " is unreachable";
      assertThat(log.text().lines().filter(line -> line.contains(unreachable)).count())
          .as(log.text())
          .isOne();
    }
  }

  /** {@code store}, counting in {@code calls} every call of its method {@code name}. */
  private static DedupStore countingCalls(DedupStore store, String name, AtomicInteger calls) {
    return (DedupStore)
        Proxy.newProxyInstance(
            DedupStore.class.getClassLoader(),
            new Class<?>[] {DedupStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals(name)) {
                calls.incrementAndGet();
              }
              try {
                return method.invoke(store, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** {@code store}, counting in {@code asked} every time its readiness is asked. */
  private static DedupStore countingReadiness(DedupStore store, AtomicInteger asked) {
    return countingCalls(store, "readiness", asked);
  }

  /**
   * {@code store}, with every renewal held back by {@code delay} while {@code busy} is set and
   * counted in {@code late} once done.
   */
  private static DedupStore slowToRenew(
      DedupStore store, AtomicBoolean busy, Duration delay, AtomicInteger late) {
    return (DedupStore)
        Proxy.newProxyInstance(
            DedupStore.class.getClassLoader(),
            new Class<?>[] {DedupStore.class},
            (proxy, method, args) -> {
              boolean held = method.getName().equals("renew") && busy.get();
              if (held) {
                // A slow store's renewal is the fault under test, not a wait for something.
                Thread.sleep(delay);
              }
              try {
                Object answer = method.invoke(store, args);
                if (held && Boolean.TRUE.equals(answer)) {
                  late.incrementAndGet();
                }
                return answer;
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** One instance's claim makes the other wait, and the other wakes on the first's result. */
  private void assertSharedAcrossInstances(DedupStore owner, DedupStore other) {
    WorkKey key = newKey();
    Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));
    assertThat(other.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
    Future<Resolution> waiter = threads.submit(() -> other.await(key, PATIENCE));
    KeptTranscript transcript = transcriptFor(key, "shared");
    assertThat(owner.complete(key, claim, transcript)).isTrue();
    assertThat(DedupStoreContract.waitFor(waiter)).isEqualTo(new Resolution.Completed(transcript));
    assertThat(other.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  private static Resolution awaitBriefly(DedupStore store, WorkKey key) {
    try {
      return store.await(key, Duration.ofMillis(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private WorkCoordinator coordinator(DedupStore store) {
    return new WorkCoordinator(
        store, threads, renewals, System::nanoTime, Thread::sleep, Duration.ofSeconds(3));
  }

  private static WorkKey newKey() {
    return new WorkKey("phone-1", randomHex(), randomHex());
  }

  private static String randomHex() {
    byte[] bytes = new byte[32];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
