package dev.bolo.testkit;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock fixed to UTC, as the gateway's and the SDK's clocks are; subclasses say what it reads.
 */
abstract class UtcClock extends Clock {

  @Override
  public final ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public final Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("fixed to UTC");
  }
}
