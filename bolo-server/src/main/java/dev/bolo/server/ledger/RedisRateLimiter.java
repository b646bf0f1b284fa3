package dev.bolo.server.ledger;

import dev.bolo.server.redis.RedisEndpoint;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RateLimiter} with one token bucket per device in Redis, shared by every instance. The
 * bucket is read, refilled and taken from in one Lua script, so concurrent requests on several
 * instances cannot both take the last token. Refill follows the callers' wall clocks (instances
 * keep them in step with NTP); the bucket's time never goes backwards, so a lagging clock only
 * refills less.
 *
 * <p>While Redis is unreachable, each instance counts in its own memory ({@link
 * TokenBucketRateLimiter}) and tries Redis again after {@link #RETRY_AFTER}. Thread safe.
 */
final class RedisRateLimiter implements RateLimiter {

  private static final Logger log = LoggerFactory.getLogger(RedisRateLimiter.class);

  /**
   * KEYS: the device's bucket. ARGV: capacity, now (ms), idle expiry (ms). Counted in whole units
   * so refill stays exact: a request costs 60000 units and each millisecond adds {@code capacity}
   * units (one request every 60000 / capacity ms), as {@link TokenBucketRateLimiter} does in
   * nanoseconds. Returns 0 when a request was counted, else the milliseconds until one would be
   * (nothing counted).
   */
  private static final String TAKE =
      """
      local capacity = tonumber(ARGV[1])
      local now = tonumber(ARGV[2])
      local full = capacity * 60000
      local bucket = redis.call('HMGET', KEYS[1], 'units', 'at')
      local units = tonumber(bucket[1])
      local at = tonumber(bucket[2])
      if units == nil or at == nil then
        units = full
        at = now
      end
      if now > at then
        units = math.min(full, units + (now - at) * capacity)
        at = now
      end
      local wait = 0
      if units >= 60000 then
        units = units - 60000
      else
        wait = math.floor((60000 - units + capacity - 1) / capacity)
      end
      redis.call('HSET', KEYS[1], 'units', string.format('%d', units), 'at', string.format('%d', at))
      redis.call('PEXPIRE', KEYS[1], ARGV[3])
      return wait
      """;

  /**
   * A short command timeout: a request waits at most this for Redis before being counted locally.
   */
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

  /** After a failure, count locally this long before asking Redis again. */
  static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  /** A bucket idle this long is full again, exactly like a missing one. */
  private static final Duration IDLE_EXPIRY = Duration.ofMinutes(1);

  private final RedisEndpoint endpoint;
  private final String keyPrefix;
  private final int capacity;
  private final Clock clock;
  private final LongSupplier ticker;
  private final RateLimiter local;
  private final Object connecting = new Object();
  private volatile RedisEndpoint.@Nullable Connections connections;
  private volatile long localUntil;
  private volatile boolean counting = true;

  RedisRateLimiter(RedisEndpoint redis, int requestsPerMinute, Clock clock, LongSupplier ticker) {
    this(redis, "bolo:rate:", requestsPerMinute, clock, ticker);
  }

  /**
   * @param keyPrefix what each bucket's Redis key starts with, the bucket's name following
   */
  RedisRateLimiter(
      RedisEndpoint redis,
      String keyPrefix,
      int requestsPerMinute,
      Clock clock,
      LongSupplier ticker) {
    this.keyPrefix = keyPrefix;
    if (requestsPerMinute < 1) {
      throw new IllegalArgumentException("requestsPerMinute must be >= 1: " + requestsPerMinute);
    }
    this.endpoint = Objects.requireNonNull(redis, "redis");
    this.capacity = requestsPerMinute;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.local = new TokenBucketRateLimiter(requestsPerMinute, ticker);
    this.localUntil = ticker.getAsLong();
  }

  @Override
  public RateDecision admit(Device device) {
    // Redis failed a moment ago: count here rather than make every request wait to learn it again.
    if (ticker.getAsLong() - localUntil < 0) {
      return local.admit(device);
    }
    try {
      long waitMillis = take(device);
      if (!counting) {
        counting = true;
        log.warn("rate limit counted in {} again, for all instances", endpoint.describe());
      }
      return waitMillis == 0
          ? RateDecision.allowed()
          : new RateDecision.Limited(Duration.ofMillis(waitMillis));
    } catch (RedisCommandInterruptedException e) {
      throw e;
    } catch (RedisException e) {
      localUntil = ticker.getAsLong() + RETRY_AFTER.toNanos();
      if (counting) {
        counting = false;
        log.error(
            "rate limit: {} unreachable ({}); counting per instance until it answers",
            endpoint.describe(),
            e.getMessage());
      }
      return local.admit(device);
    }
  }

  /** True while the last request was counted in Redis (for tests and logs). */
  boolean isShared() {
    return counting;
  }

  private long take(Device device) {
    Long wait =
        connections()
            .commands()
            .eval(
                TAKE,
                ScriptOutputType.INTEGER,
                new String[] {bucketOf(device)},
                Integer.toString(capacity),
                Long.toString(clock.millis()),
                Long.toString(IDLE_EXPIRY.toMillis()));
    return wait == null ? 0 : wait;
  }

  private RedisEndpoint.Connections connections() {
    RedisEndpoint.Connections open = connections;
    if (open != null) {
      return open;
    }
    synchronized (connecting) {
      if (connections == null) {
        connections = endpoint.connect(COMMAND_TIMEOUT, () -> {});
      }
      return Objects.requireNonNull(connections);
    }
  }

  /** The device's bucket; device names are restricted to safe characters ({@link Device}). */
  private String bucketOf(Device device) {
    return keyPrefix + device.name();
  }

  @Override
  public void close() {
    RedisEndpoint.Connections open = connections;
    if (open != null) {
      open.close();
    }
  }
}
