package dev.bolo.server.dedup;

import java.time.Duration;

/**
 * Notices when the store's generation changes (Redis back after a restart, a reconnect, see {@link
 * DedupStore#generation()}), so that the owners on this instance take back at once the claims a
 * restarted Redis forgot, not a third of a lease later.
 *
 * <p>Thread safe, looked at from one timer only.
 */
final class GenerationWatch {

  /** How often the renewals look for a change of the store's generation. */
  static final Duration PERIOD = Duration.ofMillis(200);

  private final DedupStore store;

  private volatile long watchedGeneration;

  GenerationWatch(DedupStore store) {
    this.store = store;
    this.watchedGeneration = store.generation();
  }

  /** Looks at the store's generation and returns whether it changed since the last look. */
  boolean look() {
    long generation = store.generation();
    if (generation == watchedGeneration) {
      return false;
    }
    watchedGeneration = generation;
    return true;
  }
}
