package dev.bolo.server.http;

import dev.bolo.server.ledger.Device;
import java.time.Duration;
import java.util.Optional;

/** Decides whether a device may make another request now. Thread safe. */
@FunctionalInterface
public interface RequestLimiter {

  /** Takes one request's worth of allowance, or says how long to wait before the next one. */
  Optional<Duration> tryAcquire(Device device);

  /** No limit. */
  static RequestLimiter unlimited() {
    return device -> Optional.empty();
  }
}
