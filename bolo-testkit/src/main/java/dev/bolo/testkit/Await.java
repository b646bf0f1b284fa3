package dev.bolo.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for an outcome of asynchronous work, failing after a timeout: a passing wait returns as
 * soon as the condition holds, so no test sleeps for a guessed time.
 */
public final class Await {

  /** Long enough for a loaded two-core machine; a passing wait returns as soon as it holds. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** How often the condition is looked at again. */
  private static final long POLL_MILLIS = 5;

  private Await() {}

  /**
   * Returns once {@code condition} holds; fails with {@code state} after {@link #TIMEOUT}.
   *
   * @param state describes what was seen instead, for the failure message
   */
  public static void until(BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    until(TIMEOUT, condition, state);
  }

  /** Returns once {@code condition} holds; fails naming {@code what} after {@code timeout}. */
  public static void until(Duration timeout, String what, BooleanSupplier condition)
      throws InterruptedException {
    until(timeout, condition, () -> what);
  }

  /** Returns once {@code condition} holds; fails with {@code state} after {@code timeout}. */
  public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not reached within " + timeout + ": " + state.get());
      }
      Thread.sleep(POLL_MILLIS);
    }
  }
}
