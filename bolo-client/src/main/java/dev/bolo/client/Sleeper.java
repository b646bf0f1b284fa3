package dev.bolo.client;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Waits between attempts. Injected so that tests run the resend policy on a fake clock.
 *
 * <p>Implementations must be thread-safe: one sleeper serves every note of a client.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Waits for {@code duration}, or less once {@code wakeUp} reaches zero (the note was cancelled).
   *
   * @throws InterruptedException if the waiting thread is interrupted
   */
  void sleep(Duration duration, CountDownLatch wakeUp) throws InterruptedException;

  /** Real waiting, woken at once by a cancel. */
  static Sleeper system() {
    // Whether the wait ended by cancel or by time does not matter here: the caller asks the flag.
    return (duration, wakeUp) -> wakeUp.await(duration.toNanos(), TimeUnit.NANOSECONDS);
  }
}
