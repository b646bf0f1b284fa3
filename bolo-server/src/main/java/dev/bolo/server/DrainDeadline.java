package dev.bolo.server;

import dev.bolo.server.time.Sleeper;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The end of a drain's time. Time passed is the ticker's, but never less than the time the drain
 * itself spent waiting: a ticker that stands still (a test's fake one that nobody advances) still
 * lets the drain end at its timeout instead of polling forever. Not thread safe: one drain owns it.
 */
final class DrainDeadline {

  private final LongSupplier ticker;
  private final Sleeper sleeper;
  private final long started;
  private final long timeoutNanos;
  private long waitedNanos;

  /** A deadline {@code timeout} from now on {@code ticker}, whose pauses {@code sleeper} makes. */
  DrainDeadline(LongSupplier ticker, Sleeper sleeper, Duration timeout) {
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
    }
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.started = ticker.getAsLong();
    this.timeoutNanos = timeout.toNanos();
  }

  /** Time passed since the drain began: the ticker's, or the drain's own waits if longer. */
  Duration elapsed() {
    return Duration.ofNanos(Math.max(ticker.getAsLong() - started, waitedNanos));
  }

  /** Time left before the deadline less {@code reserve}; zero when past. */
  Duration remaining(Duration reserve) {
    long left = timeoutNanos - reserve.toNanos() - elapsed().toNanos();
    return Duration.ofNanos(Math.max(0, left));
  }

  /** Whether the deadline less {@code reserve} has come. */
  boolean isPast(Duration reserve) {
    return remaining(reserve).isZero();
  }

  /** Counts a wait the caller made elsewhere (a timed wait that ran out) as time passed. */
  void waited(Duration wait) {
    waitedNanos += wait.toNanos();
  }

  /** Sleeps {@code pause} and counts it as time passed. */
  void pause(Duration pause) throws InterruptedException {
    sleeper.sleep(pause);
    waited(pause);
  }
}
