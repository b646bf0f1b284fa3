package dev.bolo.server.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A wall clock tests move forward by hand; it starts at the real time. Thread safe. */
public final class WallClock extends Clock {

  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

  public void advance(Duration by) {
    now.updateAndGet(instant -> instant.plus(by));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("fixed to UTC");
  }
}
