package dev.bolo.server.time;

import java.time.Duration;

/**
 * Waits for time to pass: between a poll's looks, a retry's attempts, a drain's checks. The
 * composition root hands in the thread's own sleep ({@code Thread::sleep}); a test hands in one
 * that advances its fake ticker and returns at once, so the waits pass as fast as the test runs.
 * Implementations are thread safe.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Returns after {@code duration} has passed.
   *
   * @throws InterruptedException when the thread is interrupted meanwhile
   */
  void sleep(Duration duration) throws InterruptedException;
}
