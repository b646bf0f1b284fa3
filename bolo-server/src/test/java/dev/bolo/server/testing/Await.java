package dev.bolo.server.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for an outcome of asynchronous work, failing after a timeout. */
public final class Await {

  /** Long enough for a loaded two-core machine; a passing wait returns as soon as it holds. */
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private Await() {}

  /**
   * Returns once {@code condition} holds; fails with {@code state} after the timeout.
   *
   * @param state describes what was seen instead, for the failure message
   */
  public static void until(BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached within " + TIMEOUT + ": " + state.get());
      }
      Thread.sleep(5);
    }
  }
}
