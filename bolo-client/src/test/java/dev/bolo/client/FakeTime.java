package dev.bolo.client;

import dev.bolo.testkit.FakeTicker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;

/** Wall time and elapsed time that move only when a test says so. Thread-safe. */
final class FakeTime {

  static final Instant START = Instant.parse("2026-11-30T12:00:00Z");

  private final FakeTicker ticker = FakeTicker.atZero();
  private final Clock clock = ticker.wallClockFrom(START);

  void advance(Duration duration) {
    ticker.advance(duration);
  }

  Duration elapsed() {
    return Duration.ofNanos(ticker.getAsLong());
  }

  LongSupplier ticker() {
    return ticker;
  }

  Clock clock() {
    return clock;
  }
}
