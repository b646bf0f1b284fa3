package dev.bolo.server.engine.route;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The gateway's ticker as the {@link Clock} resilience4j's circuit breakers read: a breaker's open
 * state lasts its wait on the same elapsed time as every other wait of the gateway, so a test that
 * advances the ticker moves the breakers with it. Its instants count from an arbitrary origin, as
 * {@link System#nanoTime} does: good for durations, meaningless as a date. Thread safe.
 */
final class TickerClock extends Clock {

  private final LongSupplier ticker;

  TickerClock(LongSupplier ticker) {
    this.ticker = ticker;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    // Only durations are read from it: a zone changes nothing.
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.EPOCH.plusNanos(ticker.getAsLong());
  }
}
