package dev.bolo.server.dedup;

import dev.bolo.server.time.Sleeper;
import dev.bolo.server.work.WorkKey;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One resolution's wait for the work another instance claimed on its key, and what it saw of that
 * claim.
 *
 * <p>A claim seen on another instance is trusted for a whole lease after the store loses sight of
 * it (Redis restarted or unreachable, see {@link DedupStore#generation()}): the wait keeps polling
 * until that claim would have expired, so an outage shorter than a lease does not start a second
 * provider call. After that the key is claimed afresh; a Redis that lost its data makes such a
 * claim tentative until a lease has passed, so an owner that takes its claim back late still wins
 * ({@link RedisScripts}).
 *
 * <p>Not thread safe: one resolution's own.
 */
final class ClaimWait {

  /**
   * How long a waiter blocks before it looks at the store again, so a lease that expired (its owner
   * died) is taken over promptly.
   */
  private static final Duration RECHECK = Duration.ofSeconds(1);

  /** How often a resolution that lost sight of another instance's claim looks for it again. */
  private static final Duration HOLD_OFF_POLL = Duration.ofMillis(200);

  private final DedupStore store;
  private final LongSupplier ticker;
  private final Sleeper sleeper;
  private final Duration lease;

  /** The resolutions on this instance that wait for another instance's work now. */
  private final AtomicInteger waitingElsewhere;

  private boolean seen;

  /** Whether this resolution counts in {@code waitingElsewhere} now. */
  private boolean counted;

  /** The store's generation when the claim was last seen alive. */
  private long generation;

  /** Whether the store answered "vacant" in a later generation since the claim was last seen. */
  private boolean lost;

  /** When it first did. */
  private long lostAt;

  ClaimWait(
      DedupStore store,
      LongSupplier ticker,
      Sleeper sleeper,
      Duration lease,
      AtomicInteger waitingElsewhere) {
    this.store = store;
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.lease = lease;
    this.waitingElsewhere = waitingElsewhere;
  }

  /** The store showed the claim alive in {@code generationThen}: trust it for another lease. */
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

  /**
   * Waits for the claim on {@code key} to end: {@link Resolution.Completed} or {@link
   * Resolution.Failed} as the work ended, {@link Resolution.Pending} when {@code deadline} (the
   * ticker's nanoseconds) passed first, {@link Resolution.Vacant} when nobody holds the key any
   * more and it may be claimed afresh.
   */
  Resolution until(WorkKey key, long deadline) throws InterruptedException {
    while (true) {
      long now = ticker.getAsLong();
      if (deadline - now <= 0) {
        return new Resolution.Pending();
      }
      long generationBefore = store.generation();
      Duration wait = Duration.ofNanos(Math.min(deadline - now, RECHECK.toNanos()));
      Resolution resolution = store.await(key, wait);
      switch (resolution) {
        case Resolution.Completed done -> {
          return done;
        }
        case Resolution.Failed failed -> {
          return failed;
        }
        case Resolution.Pending pending -> {
          // The claim is alive (again): trust it for another lease.
          alive(generationBefore);
          continue;
        }
        case Resolution.Vacant vacant -> {}
      }
      if (!isClaimMaybeAlive()) {
        return new Resolution.Vacant();
      }
      // The store lost sight of a claim that may still be running elsewhere: look again soon.
      sleeper.sleep(HOLD_OFF_POLL);
    }
  }

  /**
   * Whether a vacant key may still be claimed by another instance that this store cannot see.
   * Checks, in order:
   */
  private boolean isClaimMaybeAlive() {
    // Nobody else held it: the key is free.
    if (!seen) {
      return false;
    }
    // The store saw the claim end without interruption (its owner died and the lease ran out):
    // its word is good.
    if (store.generation() == generation) {
      return false;
    }
    // The store may have forgotten the claim (restart, outage). Its owner renewed it until then,
    // so it would have lived a lease after the store lost sight of it; after that, the owner takes
    // it back or died, and a claim made meanwhile on a Redis that lost its data is tentative.
    return ticker.getAsLong() - lost() < lease.toNanos();
  }

  /** Notes, once per sighting, the moment the store no longer knew the claim; returns it. */
  private long lost() {
    if (!lost) {
      lost = true;
      lostAt = ticker.getAsLong();
    }
    return lostAt;
  }
}
