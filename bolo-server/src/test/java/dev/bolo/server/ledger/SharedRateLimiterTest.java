package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.dedup.EmbeddedRedis;
import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.FakeTicker;
import dev.bolo.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The rate limit counted in Redis for the whole deployment, and its per-instance fallback. */
class SharedRateLimiterTest {

  private final MutableClock clock = MutableClock.at(Instant.parse("2026-11-30T12:00:00Z"));
  private final FakeTicker ticker = FakeTicker.atZero();
  private final List<RateLimiter> instances = new ArrayList<>();
  private EmbeddedRedis redis;

  @BeforeEach
  void startRedis() {
    redis = EmbeddedRedis.start();
  }

  @AfterEach
  void stop() {
    instances.forEach(RateLimiter::close);
    redis.close();
  }

  private RateLimiter instance(int perMinute) {
    RateLimiter limiter =
        RateLimiter.shared(RedisEndpoint.parse(redis.url()), perMinute, clock, ticker);
    instances.add(limiter);
    return limiter;
  }

  @Test
  void threeInstancesShareOneBucketOfTenRequestsAMinute() {
    List<RateLimiter> gateways = List.of(instance(10), instance(10), instance(10));
    Device phone = new Device("phone");

    assertThat(allowed(gateways, phone, 30)).isEqualTo(10);
    RateDecision next = gateways.getFirst().admit(phone);
    assertThat(next).isInstanceOf(RateDecision.Limited.class);
    assertThat(((RateDecision.Limited) next).retryAfter()).isEqualTo(Duration.ofSeconds(6));

    // One token arrives every six seconds, for the deployment, not per instance.
    clock.advance(Duration.ofSeconds(6));
    assertThat(allowed(gateways, phone, 30)).isEqualTo(1);
    clock.advance(Duration.ofMinutes(1));
    assertThat(allowed(gateways, phone, 30)).isEqualTo(10);
    // Another device has its own bucket.
    assertThat(allowed(gateways, new Device("tablet"), 30)).isEqualTo(10);
  }

  @Test
  void whileRedisIsDownEachInstanceCountsOnItsOwnAndRedisCountsAgainOnceItIsBack()
      throws InterruptedException {
    List<RateLimiter> gateways = List.of(instance(10), instance(10), instance(10));
    Device phone = new Device("phone");
    assertThat(gateways.getFirst().admit(phone)).isEqualTo(RateDecision.allowed());

    redis.stop();

    // Per instance: each of the three allows its own ten.
    assertThat(allowed(gateways, phone, 60)).isEqualTo(30);

    redis.startAgain();
    clock.advance(Duration.ofMinutes(1));
    for (RateLimiter gateway : gateways) {
      awaitShared((RedisRateLimiter) gateway);
    }

    assertThat(allowed(gateways, phone, 30)).isEqualTo(10);
  }

  /** Lets the fallback's retry pause pass until the instance counts in Redis again. */
  private void awaitShared(RedisRateLimiter gateway) throws InterruptedException {
    Device probe = new Device("probe");
    Await.until(
        Duration.ofSeconds(15),
        "Redis counted again in time",
        () -> {
          ticker.advance(RedisRateLimiter.RETRY_AFTER.plusMillis(1));
          gateway.admit(probe);
          return gateway.isShared();
        });
  }

  /** Sends {@code requests} round robin over the instances; returns how many were allowed. */
  private static int allowed(List<RateLimiter> gateways, Device device, int requests) {
    int allowed = 0;
    for (int i = 0; i < requests; i++) {
      if (gateways.get(i % gateways.size()).admit(device) instanceof RateDecision.Allowed) {
        allowed++;
      }
    }
    return allowed;
  }
}
