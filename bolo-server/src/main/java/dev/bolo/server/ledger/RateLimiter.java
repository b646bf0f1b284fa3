package dev.bolo.server.ledger;

import java.util.function.LongSupplier;

/**
 * Limits how many requests each device may make per minute. Thread safe.
 *
 * <p>The limit is kept in memory, per gateway instance: with N instances behind a load balancer a
 * device may make up to N times the limit. That is enough to stop a runaway client from flooding
 * one instance; quota, which costs money, is enforced in the database across instances.
 */
public interface RateLimiter {

  /** Counts one request from {@code device} if the device is under its limit. */
  RateDecision admit(Device device);

  /** Lets every request through. */
  static RateLimiter unlimited() {
    return device -> RateDecision.allowed();
  }

  /**
   * A token bucket per device holding up to {@code requestsPerMinute} requests and refilled evenly
   * over a minute, so a device may burst a minute's worth at once and then keep the average rate.
   *
   * @param requestsPerMinute the limit; 0 = {@link #unlimited()}
   * @param ticker elapsed nanoseconds
   */
  static RateLimiter perMinute(int requestsPerMinute, LongSupplier ticker) {
    if (requestsPerMinute < 0) {
      throw new IllegalArgumentException("requestsPerMinute must be >= 0: " + requestsPerMinute);
    }
    return requestsPerMinute == 0
        ? unlimited()
        : new TokenBucketRateLimiter(requestsPerMinute, ticker);
  }
}
