package dev.bolo.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/** A wall clock in UTC that tests set and move forward by hand. Thread safe. */
public final class MutableClock extends UtcClock {

  private final AtomicReference<Instant> now;

  private MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** A clock that reads {@code start} until it is moved. */
  public static MutableClock at(Instant start) {
    return new MutableClock(start);
  }

  /** A clock that reads the real time of its creation until it is moved. */
  public static MutableClock startingNow() {
    return new MutableClock(Instant.now());
  }

  public void set(Instant instant) {
    now.set(instant);
  }

  public void advance(Duration by) {
    now.updateAndGet(instant -> instant.plus(by));
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}
