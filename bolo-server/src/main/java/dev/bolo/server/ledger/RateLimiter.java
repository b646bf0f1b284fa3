package dev.bolo.server.ledger;

import dev.bolo.server.redis.RedisEndpoint;
import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * Limits how many requests each device may make per minute. Thread safe.
 *
 * <p>{@link #perMinute} counts in this process's memory: with N instances behind a load balancer a
 * device may make up to N times the limit. {@link #shared} counts in Redis, once for the whole
 * deployment, and falls back to the per-instance count while Redis is unreachable.
 */
public interface RateLimiter extends AutoCloseable {

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

  /**
   * The same token bucket, kept in Redis and shared by every instance on it (one Lua script per
   * request); while Redis is unreachable each instance counts on its own, as {@link #perMinute}
   * does, and it returns to Redis by itself.
   *
   * @param redis where Redis is
   * @param requestsPerMinute the limit; 0 = {@link #unlimited()}
   * @param clock wall time, the bucket's refill clock shared by every instance
   * @param ticker elapsed nanoseconds, for the fallback and for retrying Redis
   */
  static RateLimiter shared(
      RedisEndpoint redis, int requestsPerMinute, Clock clock, LongSupplier ticker) {
    if (requestsPerMinute < 0) {
      throw new IllegalArgumentException("requestsPerMinute must be >= 0: " + requestsPerMinute);
    }
    return requestsPerMinute == 0
        ? unlimited()
        : new RedisRateLimiter(redis, requestsPerMinute, clock, ticker);
  }

  /**
   * The same shared token bucket for calls other than a device's, e.g. an engine's calls per
   * minute: each bucket is named by the {@code Device} passed to {@link #admit}, its key under
   * {@code bolo:rate:<namespace>:}, apart from every device's (a device's name holds no colon).
   */
  static RateLimiter sharedIn(
      String namespace, RedisEndpoint redis, int perMinute, Clock clock, LongSupplier ticker) {
    if (perMinute < 1 || !namespace.matches("[a-z]+")) {
      throw new IllegalArgumentException("a namespace of letters and a limit >= 1: " + namespace);
    }
    return new RedisRateLimiter(redis, "bolo:rate:" + namespace + ":", perMinute, clock, ticker);
  }

  /** Releases connections, if any. */
  @Override
  default void close() {}
}
