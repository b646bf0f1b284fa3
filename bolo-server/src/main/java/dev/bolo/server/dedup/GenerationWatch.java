package dev.bolo.server.dedup;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Notices when the store's generation changes (Redis back after a restart, a reconnect, see {@link
 * DedupStore#generation()}) and remembers when, so that a resolution does not claim a key, or give
 * up on another instance's claim, before the owners on every instance have taken their forgotten
 * claims back.
 *
 * <p>Thread safe: the renewals' timer looks, every resolution reads.
 */
final class GenerationWatch {

  /**
   * How often the coordinator looks for a change of the store's generation: once Redis is back
   * after a restart, the owners take their forgotten claims back within this, not a third of a
   * lease later, so copies arriving meanwhile find the claim and wait for it.
   */
  static final Duration PERIOD = Duration.ofMillis(200);

  /**
   * How long after the store changed (Redis back after a restart, a reconnect) a resolution waits
   * before its first claim: the owners on every instance take their forgotten claims back within
   * one watch period of their own instance noticing, which may be a probe period after this one did
   * ({@link FailOpenDedupStore#RETRY_WHILE_DOWN}), so a claim made sooner could win a key whose
   * work is running.
   */
  static final Duration SETTLE_AFTER_CHANGE =
      PERIOD.plus(FailOpenDedupStore.RETRY_WHILE_DOWN).plus(PERIOD);

  private final DedupStore store;
  private final LongSupplier ticker;

  private volatile long watchedGeneration;

  /** When the watch last saw the store's generation change (the ticker's nanoseconds). */
  private volatile long changedAt;

  GenerationWatch(DedupStore store, LongSupplier ticker) {
    this.store = store;
    this.ticker = ticker;
    this.watchedGeneration = store.generation();
    this.changedAt = ticker.getAsLong() - SETTLE_AFTER_CHANGE.toNanos();
  }

  /**
   * Looks at the store's generation (from one timer only) and returns whether it changed since the
   * last look.
   */
  boolean look(long now) {
    long generation = store.generation();
    if (generation == watchedGeneration) {
      return false;
    }
    watchedGeneration = generation;
    changedAt = now;
    return true;
  }

  /**
   * When the store last changed, as seen at {@code now}: the watch notices a change up to one
   * period after it happened, and a change it has not noticed yet counts as happening now.
   */
  long changedAt(long now) {
    return store.generation() != watchedGeneration ? now : changedAt;
  }

  /**
   * Waits, once and at most {@link #SETTLE_AFTER_CHANGE}, when the store changed a moment ago (or
   * has changed and the watch has not noticed yet): a resolution that claimed now could find a key
   * free whose owner on another instance has not yet taken its claim back after a Redis restart,
   * and run the work a second time. Rare (only right after a reconnect) and short.
   */
  void settle(long deadline) throws InterruptedException {
    long now = ticker.getAsLong();
    long settle = SETTLE_AFTER_CHANGE.toNanos();
    long wait = Math.min(changedAt(now) + settle - now, settle);
    wait = Math.min(wait, deadline - now);
    if (wait > 0) {
      Thread.sleep(Duration.ofNanos(wait));
    }
  }
}
