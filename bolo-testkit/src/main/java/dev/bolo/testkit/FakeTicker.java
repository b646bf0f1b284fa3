package dev.bolo.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A ticker (nanoseconds of elapsed time, as {@link System#nanoTime}) that moves only when a test
 * advances it; the code under test takes it as its {@link LongSupplier}. Thread safe.
 */
public final class FakeTicker implements LongSupplier {

  private final AtomicLong nanos;

  private FakeTicker(long start) {
    this.nanos = new AtomicLong(start);
  }

  /** A ticker at 0. */
  public static FakeTicker atZero() {
    return new FakeTicker(0);
  }

  /**
   * A ticker at one second: code that keeps 0 for "never happened" sees every reading as a real
   * moment.
   */
  public static FakeTicker atOneSecond() {
    return new FakeTicker(1_000_000_000L);
  }

  public void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }

  @Override
  public long getAsLong() {
    return nanos.get();
  }

  /**
   * A wall clock in UTC that reads {@code start} plus what this ticker has advanced since 0: wall
   * time and elapsed time move together, in one step, as on a phone whose clock nobody sets.
   */
  public Clock wallClockFrom(Instant start) {
    return new UtcClock() {
      @Override
      public Instant instant() {
        return start.plusNanos(nanos.get());
      }
    };
  }
}
