package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.dedup.EmbeddedRedis;
import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The limiter shared through a real Redis, on a fake wall clock. */
class RedisRateLimiterTest extends RateLimiterContract {

  private static EmbeddedRedis redis;
  private final MutableClock clock = MutableClock.at(Instant.parse("2026-11-30T12:00:00Z"));

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @BeforeEach
  void emptyRedis() {
    // Each test starts with no buckets: the devices' names repeat across tests.
    redis.stop();
    redis.startAgain();
  }

  private final List<RateLimiter> made = new ArrayList<>();

  @Override
  protected RateLimiter newLimiter(int perMinute) {
    RateLimiter limiter =
        RateLimiter.shared(RedisEndpoint.parse(redis.url()), perMinute, clock, ticker);
    made.add(limiter);
    return limiter;
  }

  @AfterEach
  void everyRequestWasCountedInRedis() {
    // The per-instance fallback gives the same answers: make sure it was not what answered.
    for (RateLimiter limiter : made) {
      if (limiter instanceof RedisRateLimiter shared) {
        assertThat(shared.isShared()).isTrue();
      }
    }
  }

  @Override
  protected void advance(Duration duration) {
    clock.advance(duration);
  }
}
