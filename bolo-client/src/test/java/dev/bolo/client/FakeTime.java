package dev.bolo.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Wall time and elapsed time that move only when a test says so. Thread-safe. */
final class FakeTime {

  static final Instant START = Instant.parse("2026-11-30T12:00:00Z");

  private final AtomicLong nanos = new AtomicLong();

  void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  Duration elapsed() {
    return Duration.ofNanos(nanos.get());
  }

  LongSupplier ticker() {
    return nanos::get;
  }

  Clock clock() {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("fixed to UTC");
      }

      @Override
      public Instant instant() {
        return START.plusNanos(nanos.get());
      }
    };
  }
}
