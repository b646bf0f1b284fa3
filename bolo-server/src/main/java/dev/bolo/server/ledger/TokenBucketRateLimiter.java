package dev.bolo.server.ledger;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.function.LongSupplier;

/** {@link RateLimiter} with one in-memory token bucket per device. */
final class TokenBucketRateLimiter implements RateLimiter {

  private static final long NANOS_PER_MINUTE = Duration.ofMinutes(1).toNanos();

  /**
   * A bucket idle for a minute is full again, exactly like a new one, so forgetting it then changes
   * nothing and bounds memory to the devices active in the last minute.
   */
  private static final Duration FORGET_AFTER = Duration.ofMinutes(1);

  private final int capacity;
  private final LongSupplier ticker;
  private final Cache<String, Bucket> buckets;

  TokenBucketRateLimiter(int requestsPerMinute, LongSupplier ticker) {
    if (requestsPerMinute < 1) {
      throw new IllegalArgumentException("requestsPerMinute must be >= 1: " + requestsPerMinute);
    }
    this.capacity = requestsPerMinute;
    this.ticker = ticker;
    this.buckets =
        Caffeine.newBuilder().expireAfterAccess(FORGET_AFTER).ticker(ticker::getAsLong).build();
  }

  @Override
  public RateDecision admit(Device device) {
    long now = ticker.getAsLong();
    Bucket bucket = buckets.get(device.name(), name -> new Bucket(capacity, now));
    long waitNanos = bucket.take(now, capacity);
    return waitNanos == 0
        ? RateDecision.allowed()
        : new RateDecision.Limited(Duration.ofNanos(waitNanos));
  }

  /** Tokens are counted in nano-requests so refilling over any interval stays exact. */
  private static final class Bucket {
    private long nanoTokens;
    private long refilledAt;

    Bucket(int capacity, long now) {
      this.nanoTokens = capacity * NANOS_PER_MINUTE;
      this.refilledAt = now;
    }

    /** Takes one request's token and returns 0, or returns how long until one is there. */
    synchronized long take(long now, int capacity) {
      long full = capacity * NANOS_PER_MINUTE;
      long elapsed = Math.max(0, now - refilledAt);
      // One token (NANOS_PER_MINUTE nano-tokens) arrives every minute / capacity.
      nanoTokens = (long) Math.min((double) full, nanoTokens + (double) elapsed * capacity);
      refilledAt = now;
      if (nanoTokens >= NANOS_PER_MINUTE) {
        nanoTokens -= NANOS_PER_MINUTE;
        return 0;
      }
      long missing = NANOS_PER_MINUTE - nanoTokens;
      return Math.max(1, (missing + capacity - 1) / capacity);
    }
  }
}
