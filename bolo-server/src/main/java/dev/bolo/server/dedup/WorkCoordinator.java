package dev.bolo.server.dedup;

import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs each piece of work once however many copies of it arrive.
 *
 * <p>Copies on this instance always meet in an in-flight map, whatever the shared store does: the
 * first copy starts one detached <em>resolution</em> of the key and every copy waits for it with
 * its own deadline. The resolution asks the store: it replays a stored transcript, runs the work
 * itself when it wins the claim (renewing the lease meanwhile), or waits for another instance's
 * claim to end. A client that hangs up cancels nothing.
 *
 * <p>A claim seen on another instance is trusted for a whole lease after the store loses sight of
 * it (Redis restarted or unreachable, see {@link DedupStore#generation()}): the resolution keeps
 * polling until that claim would have expired, and if the store comes back before then, until its
 * owner has had time to take it back ({@link #OWNERS_RETAKE}), before it runs the work itself, so
 * an outage shorter than a lease does not start a second provider call.
 *
 * <p>Thread safe; one instance serves the whole gateway.
 */
public final class WorkCoordinator {

  private static final Logger log = LoggerFactory.getLogger(WorkCoordinator.class);

  /**
   * How long a waiter blocks before it looks at the store again, so a lease that expired (its owner
   * died) is taken over promptly.
   */
  private static final Duration RECHECK = Duration.ofSeconds(1);

  /** How often a resolution that lost sight of another instance's claim looks for it again. */
  private static final Duration HOLD_OFF_POLL = Duration.ofMillis(200);

  /**
   * What everyone waiting on work that threw is told (an Error too: a full heap, a deep recursion):
   * the gateway's fault, a resend may succeed, and nothing of the exception. It is logged once.
   */
  static final WorkResult.Refused INTERNAL_ERROR =
      new WorkResult.Refused(Problem.INTERNAL, "internal error; the note was not transcribed");

  private final DedupStore store;
  private final Executor detached;
  private final ScheduledExecutorService renewals;
  private final LongSupplier ticker;
  private final Duration lease;
  private final Map<WorkKey, InFlight> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger waitingElsewhere = new AtomicInteger();

  /**
   * Leases this instance holds now. One timer sweeps them all (a timer per lease cost a scheduler
   * wake-up per note): each is renewed once a third of the lease has passed since its last renewal,
   * and at once when the store's generation changes.
   */
  private final Set<Renewal> renewing = ConcurrentHashMap.newKeySet();

  /** A third of the lease, in the ticker's nanoseconds: how often each lease is renewed. */
  private final long renewEvery;

  /**
   * How often the coordinator looks for a change of the store's generation: once Redis is back
   * after a restart, the owners take their forgotten claims back within this, not a third of a
   * lease later, so copies arriving meanwhile find the claim and wait for it.
   */
  private static final Duration GENERATION_WATCH = Duration.ofMillis(200);

  private volatile long watchedGeneration;

  /** When the watch last saw the store's generation change (the ticker's nanoseconds). */
  private volatile long generationChangedAt;

  /**
   * How long after the store changed (Redis back after a restart, a reconnect) a resolution waits
   * before its first claim: the owners on every instance take their forgotten claims back within
   * one watch period of their own instance noticing, which may be a probe period after this one did
   * ({@link FailOpenDedupStore#RETRY_WHILE_DOWN}), so a claim made sooner could win a key whose
   * work is running.
   */
  private static final Duration SETTLE_AFTER_CHANGE =
      GENERATION_WATCH.plus(FailOpenDedupStore.RETRY_WHILE_DOWN).plus(GENERATION_WATCH);

  /**
   * How long a waiter that lost sight of another instance's claim keeps waiting after the store
   * came back, even past the lease: the owner's instance notices within a probe period, takes the
   * claim back within a watch period, and writes a result kept meanwhile; this leaves room for a
   * slow store call on top.
   */
  static final Duration OWNERS_RETAKE = Duration.ofSeconds(1);

  /** One resolution on this instance and how many copies wait for it. */
  private record InFlight(CompletableFuture<Served> outcome, AtomicInteger copies) {}

  /**
   * @param store where claims and results live
   * @param detached runs work, resolutions and lease renewals outside the request thread (virtual
   *     threads: a renewal that blocks on a slow store delays no other)
   * @param renewals only times the renewals; never blocks
   * @param ticker monotonic nanoseconds, for the waiters' deadline and the lease a lost claim is
   *     trusted for
   * @param lease how long a claim lives without renewal; renewed every third of it
   */
  public WorkCoordinator(
      DedupStore store,
      Executor detached,
      ScheduledExecutorService renewals,
      LongSupplier ticker,
      Duration lease) {
    this.store = Objects.requireNonNull(store, "store");
    this.detached = Objects.requireNonNull(detached, "detached");
    this.renewals = Objects.requireNonNull(renewals, "renewals");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (lease.toMillis() < 30) {
      throw new IllegalArgumentException("lease must be at least 30 ms: " + lease);
    }
    this.lease = lease;
    this.watchedGeneration = store.generation();
    this.generationChangedAt = ticker.getAsLong() - SETTLE_AFTER_CHANGE.toNanos();
    this.renewEvery = Math.max(10, lease.toMillis() / 3) * 1_000_000L;
    long sweep = Math.clamp(lease.toMillis() / 6, 5, GENERATION_WATCH.toMillis());
    try {
      renewals.scheduleWithFixedDelay(this::sweep, sweep, sweep, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Shutting down already: no work is started, so no lease needs renewing.
    }
  }

  /**
   * What a request was answered with, and where the answer came from.
   *
   * @param replay whether the answer came from this request's own work, from work that was in
   *     flight when it arrived, or from a stored result
   */
  public record Served(WorkResult outcome, Replay replay) {

    /** An answer from this request's own work ({@code false}) or from other work ({@code true}). */
    public Served(WorkResult outcome, boolean replayed) {
      this(outcome, replayed ? Replay.JOINED : Replay.NONE);
    }

    /** Whether the answer came from other work than this request's own. */
    public boolean replayed() {
      return replay != Replay.NONE;
    }
  }

  /** Where an answer came from; operators watch joins and cache hits separately. */
  public enum Replay {
    /** This request's own work, run for it. */
    NONE,
    /** Work that was in flight when the request arrived, on this instance or another. */
    JOINED,
    /** A result stored by earlier work. */
    CACHED
  }

  /**
   * Serves one copy of the work.
   *
   * @param maxWait how long this copy waits for the outcome before giving up (504); the work goes
   *     on
   * @param work runs at most once among all concurrent copies on this instance (and, while the
   *     store is shared and reachable, among all instances); may throw anything, which its waiters
   *     receive as a 502
   * @throws InterruptedException if this request's thread is interrupted; the work goes on
   */
  public Served serve(WorkKey key, Duration maxWait, Supplier<WorkResult> work)
      throws InterruptedException {
    long deadline = ticker.getAsLong() + maxWait.toNanos();
    InFlight started = new InFlight(new CompletableFuture<>(), new AtomicInteger());
    InFlight joined =
        inFlight.compute(
            key,
            (k, current) -> {
              InFlight use = current != null ? current : started;
              use.copies().incrementAndGet();
              return use;
            });
    try {
      if (joined == started) {
        resolveDetached(key, deadline, work, started);
        return awaitOutcome(started.outcome(), deadline);
      }
      Served shared = awaitOutcome(joined.outcome(), deadline);
      // Joining a resolution that itself found a stored result is a cache hit all the same.
      return new Served(
          shared.outcome(), shared.replay() == Replay.CACHED ? Replay.CACHED : Replay.JOINED);
    } finally {
      joined.copies().decrementAndGet();
    }
  }

  /** How many copies on this instance wait for an outcome now, over all keys (for a metric). */
  public int copiesWaiting() {
    return inFlight.values().stream().mapToInt(entry -> entry.copies().get()).sum();
  }

  /**
   * How many resolutions on this instance wait for work that another instance claimed (for a
   * metric): the notes this instance did not run because another instance runs them.
   */
  public int waitingOnOtherInstances() {
    return waitingElsewhere.get();
  }

  /** How many copies on this instance wait for the key's outcome now (for tests). */
  int copiesWaiting(WorkKey key) {
    InFlight current = inFlight.get(key);
    return current == null ? 0 : current.copies().get();
  }

  private void resolveDetached(
      WorkKey key, long deadline, Supplier<WorkResult> work, InFlight entry) {
    CompletableFuture<Served> result = entry.outcome();
    var context = MDC.getCopyOfContextMap();
    try {
      detached.execute(
          () -> {
            if (context != null) {
              MDC.setContextMap(context);
            }
            Served served = internalError();
            try {
              served = resolve(key, deadline, work);
            } catch (InterruptedException e) {
              // Only a shutdown interrupts detached work.
              served = internalError();
            } catch (Throwable e) {
              log.error("resolving {} failed unexpectedly", key.asString(), e);
              served = internalError();
            } finally {
              // Leave the map first: a copy arriving from now on asks the store, which already
              // holds a success, and runs afresh after a failure. In a finally, so that not even an
              // Error thrown while reporting one leaves the key stuck on this instance.
              inFlight.remove(key, entry);
              result.complete(served);
              MDC.clear();
            }
          });
    } catch (RejectedExecutionException e) {
      inFlight.remove(key, entry);
      result.complete(
          new Served(
              new WorkResult.Refused(Problem.UPSTREAM_UNAVAILABLE, "the gateway is shutting down"),
              Replay.NONE));
    }
  }

  /** Finds the outcome of the key: a stored one, this instance's run, or another instance's. */
  private Served resolve(WorkKey key, long deadline, Supplier<WorkResult> work)
      throws InterruptedException {
    Sighting sighting = new Sighting();
    try {
      return resolve(key, deadline, work, sighting);
    } finally {
      sighting.stopWaiting();
    }
  }

  private Served resolve(WorkKey key, long deadline, Supplier<WorkResult> work, Sighting sighting)
      throws InterruptedException {
    settleAfterStoreChange(deadline);
    while (true) {
      long generation = store.generation();
      switch (store.claim(key, lease)) {
        case Claim.Completed completed -> {
          return replay(key, completed.transcript(), Replay.CACHED);
        }
        case Claim.Owned owned -> {
          sighting.stopWaiting();
          return new Served(runOwned(key, owned, work), Replay.NONE);
        }
        case Claim.Busy busy -> sighting.alive(generation);
      }
      while (true) {
        long now = ticker.getAsLong();
        if (deadline - now <= 0) {
          return stillRunning();
        }
        long generationBefore = store.generation();
        Duration wait = Duration.ofNanos(Math.min(deadline - now, RECHECK.toNanos()));
        Resolution resolution = store.await(key, wait);
        switch (resolution) {
          case Resolution.Completed done -> {
            return replay(key, done.transcript(), Replay.JOINED);
          }
          case Resolution.Failed failed -> {
            return new Served(failed.refusal(), Replay.JOINED);
          }
          case Resolution.Pending pending -> {
            // The claim is alive (again): trust it for another lease.
            sighting.alive(generationBefore);
            continue;
          }
          case Resolution.Vacant vacant -> {}
        }
        if (!isClaimMaybeAlive(sighting)) {
          break;
        }
        // The store lost sight of a claim that may still be running elsewhere: look again soon.
        Thread.sleep(HOLD_OFF_POLL);
      }
    }
  }

  /** What one resolution saw of another instance's claim on its key. */
  private final class Sighting {
    private boolean seen;

    /** Whether this resolution counts in {@link #waitingOnOtherInstances()} now. */
    private boolean counted;

    /** The store's generation when the claim was last seen alive. */
    private long generation;

    /** Whether the store answered "vacant" in a later generation since the claim was last seen. */
    private boolean lost;

    /** When it first did. */
    private long lostAt;

    void alive(long generationThen) {
      if (!counted) {
        counted = true;
        waitingElsewhere.incrementAndGet();
      }
      seen = true;
      generation = generationThen;
      lost = false;
    }

    /** This resolution no longer waits for another instance: it runs the work, or it is done. */
    void stopWaiting() {
      if (counted) {
        counted = false;
        waitingElsewhere.decrementAndGet();
      }
    }

    /** Notes, once per sighting, the moment the store no longer knew the claim; returns it. */
    long lost() {
      if (!lost) {
        lost = true;
        lostAt = ticker.getAsLong();
      }
      return lostAt;
    }
  }

  /**
   * Waits, once and at most {@link #SETTLE_AFTER_CHANGE}, when the store changed a moment ago (or
   * has changed and the watch has not noticed yet): a resolution that claimed now could find a key
   * free whose owner on another instance has not yet taken its claim back after a Redis restart,
   * and run the work a second time. Rare (only right after a reconnect) and short.
   */
  private void settleAfterStoreChange(long deadline) throws InterruptedException {
    long now = ticker.getAsLong();
    long changedAt = store.generation() != watchedGeneration ? now : generationChangedAt;
    long wait =
        Math.min(changedAt + SETTLE_AFTER_CHANGE.toNanos() - now, SETTLE_AFTER_CHANGE.toNanos());
    wait = Math.min(wait, deadline - now);
    if (wait > 0) {
      Thread.sleep(Duration.ofNanos(wait));
    }
  }

  /**
   * Whether a vacant key may still be claimed by another instance that this store cannot see.
   * Checks, in order:
   */
  private boolean isClaimMaybeAlive(Sighting sighting) {
    // Nobody else held it: the key is free.
    if (!sighting.seen) {
      return false;
    }
    // The store saw the claim end without interruption (its owner died and the lease ran out):
    // its word is good.
    if (store.generation() == sighting.generation) {
      return false;
    }
    // The store may have forgotten the claim (restart, outage). Its owner renewed it until then,
    // so it would have lived a lease after the store lost sight of it; after that, running the
    // work is the price of failing open.
    long now = ticker.getAsLong();
    long lostAt = sighting.lost();
    if (now - lostAt < lease.toNanos()) {
      return true;
    }
    // The store came back before that lease ran out: a live owner takes its claim back within
    // OWNERS_RETAKE of that moment, so give it that long. The watch notices a change up to one
    // period after it happened, and not yet if it happened since its last look.
    if (store.isDegraded()) {
      return false;
    }
    long backAt = store.generation() != watchedGeneration ? now : generationChangedAt;
    return backAt - lostAt < lease.plus(GENERATION_WATCH).toNanos()
        && now - backAt < OWNERS_RETAKE.toNanos();
  }

  private Served replay(WorkKey key, KeptTranscript transcript, Replay replay) {
    // Bug guard: a stored entry must answer the key it was stored under.
    if (!transcript.answers(key)) {
      log.error("stored transcript does not answer its key {}", key.asString());
      return new Served(
          new WorkResult.Refused(
              Problem.IDEMPOTENCY_CONFLICT, "a stored result contradicts this request's key"),
          replay);
    }
    return new Served(new WorkResult.Success(transcript), replay);
  }

  /** Runs the work this instance owns, renewing its lease, and records how it ended. */
  private WorkResult runOwned(WorkKey key, Claim.Owned owned, Supplier<WorkResult> work) {
    Renewal renewal = new Renewal(key, owned);
    WorkResult outcome;
    try {
      outcome = work.get();
    } catch (Throwable e) {
      // An Error too (StackOverflowError, OutOfMemoryError): every waiter still gets an answer.
      log.error("transcription failed unexpectedly", e);
      outcome = INTERNAL_ERROR;
    } finally {
      renewal.stop();
    }
    try {
      finish(key, owned, outcome);
    } catch (Throwable e) {
      log.error("could not record the outcome for {}", key.asString(), e);
    }
    return outcome;
  }

  /**
   * Renews every lease when the store's generation changed, otherwise those a third of a lease old.
   * Runs every sixth of a lease (at most {@link #GENERATION_WATCH}, at least 5 ms apart), so a
   * lease is renewed at the latest half a lease after the last renewal. Non-blocking: each renewal
   * runs on its own detached thread.
   */
  private void sweep() {
    long now = ticker.getAsLong();
    long generation = store.generation();
    boolean changed = generation != watchedGeneration;
    if (changed) {
      watchedGeneration = generation;
      generationChangedAt = now;
    }
    for (Renewal renewal : renewing) {
      if (changed || now - renewal.renewedAt >= renewEvery) {
        renewal.due(now);
      }
    }
  }

  /**
   * One lease this instance holds. A renewal still running when the next is due is not doubled, so
   * neither a slow store call nor the number of leases delays another lease's renewal.
   */
  private final class Renewal {
    private final WorkKey key;
    private final Claim.Owned owned;
    private final AtomicBoolean running = new AtomicBoolean();

    /** When the sweep last sent this lease to be renewed (the ticker's nanoseconds). */
    private volatile long renewedAt;

    Renewal(WorkKey key, Claim.Owned owned) {
      this.key = key;
      this.owned = owned;
      this.renewedAt = ticker.getAsLong();
      renewing.add(this);
    }

    private void due(long now) {
      if (!running.compareAndSet(false, true)) {
        return;
      }
      renewedAt = now;
      try {
        detached.execute(this::renew);
      } catch (RejectedExecutionException e) {
        running.set(false);
      }
    }

    private void renew() {
      try {
        if (!store.renew(key, owned, lease)) {
          log.warn("lost the claim on {} while transcribing", key.asString());
        }
      } catch (RuntimeException e) {
        log.warn("could not renew the claim on {}: {}", key.asString(), e.toString());
      } finally {
        running.set(false);
      }
    }

    void stop() {
      renewing.remove(this);
    }
  }

  private void finish(WorkKey key, Claim.Owned owned, WorkResult outcome) {
    switch (outcome) {
      case WorkResult.Success success -> {
        if (!store.complete(key, owned, success.transcript())) {
          log.warn(
              "claim on {} was lost and another result is stored; this one is not", key.asString());
        }
      }
      case WorkResult.Refused refused -> store.fail(key, owned, refused);
    }
  }

  private Served awaitOutcome(CompletableFuture<Served> outcome, long deadline)
      throws InterruptedException {
    try {
      long remaining = Math.max(0, deadline - ticker.getAsLong());
      return outcome.get(remaining, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return stillRunning();
    } catch (ExecutionException e) {
      log.error("resolution ended exceptionally", e);
      return internalError();
    }
  }

  private static Served stillRunning() {
    return new Served(
        new WorkResult.Refused(
            Problem.UPSTREAM_TIMEOUT, "the same note is still being transcribed; resend later"),
        Replay.JOINED);
  }

  private static Served internalError() {
    return new Served(INTERNAL_ERROR, Replay.NONE);
  }
}
