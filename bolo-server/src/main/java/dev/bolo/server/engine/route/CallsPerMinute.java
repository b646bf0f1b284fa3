package dev.bolo.server.engine.route;

import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A limit of calls started per minute to one engine ({@code BOLO_ENGINE_<NAME>_MAX_PER_MINUTE}): on
 * this instance alone, or shared by every instance through Redis when the store is Redis.
 */
public interface CallsPerMinute extends AutoCloseable {

  /** Zero when a call may start now (it is counted), else how long until one may. */
  Duration tryStart();

  /** Releases connections, if any. */
  @Override
  default void close() {}

  /**
   * A limit of this instance alone, with resilience4j's rate limiter, its minutes on {@code ticker}
   * (elapsed nanoseconds).
   */
  static CallsPerMinute local(String name, int perMinute, LongSupplier ticker) {
    AtomicRateLimiter limiter =
        new AtomicRateLimiter(
            name,
            RateLimiterConfig.custom()
                .limitForPeriod(perMinute)
                .limitRefreshPeriod(Duration.ofMinutes(1))
                .timeoutDuration(Duration.ZERO)
                .build(),
            ticker::getAsLong);
    return () -> {
      if (limiter.acquirePermission()) {
        return Duration.ZERO;
      }
      long nanos = limiter.getDetailedMetrics().getNanosToWait();
      return Duration.ofSeconds(Math.max(1, (nanos + 999_999_999) / 1_000_000_000));
    };
  }
}
