package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RateLimiter} does, run against the per-instance one ({@link
 * InMemoryRateLimiterTest}) and the one shared through Redis ({@link RedisRateLimiterTest}).
 */
abstract class RateLimiterContract {

  protected final FakeTicker ticker = FakeTicker.atOneSecond();
  private final Device phone = new Device("phone");
  private final List<RateLimiter> limiters = new ArrayList<>();

  /** A new limiter; {@code 0} turns it off. */
  protected abstract RateLimiter newLimiter(int perMinute);

  /** Lets time pass for the limiter's refill. */
  protected abstract void advance(Duration duration);

  private RateLimiter limiter(int perMinute) {
    RateLimiter limiter = newLimiter(perMinute);
    limiters.add(limiter);
    return limiter;
  }

  @AfterEach
  void closeLimiters() {
    limiters.forEach(RateLimiter::close);
  }

  @Test
  void aDeviceMayBurstAMinutesWorthThenWaitsForTheNextToken() {
    RateLimiter limiter = limiter(60);

    assertThat(IntStream.range(0, 60).mapToObj(i -> limiter.admit(phone)))
        .containsOnly(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isEqualTo(new RateDecision.Limited(Duration.ofSeconds(1)));

    advance(Duration.ofMillis(400));
    assertThat(limiter.admit(phone)).isEqualTo(new RateDecision.Limited(Duration.ofMillis(600)));

    advance(Duration.ofMillis(600));
    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isInstanceOf(RateDecision.Limited.class);
  }

  @Test
  void eachDeviceHasItsOwnBucket() {
    RateLimiter limiter = limiter(1);

    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isInstanceOf(RateDecision.Limited.class);
    assertThat(limiter.admit(new Device("tablet"))).isEqualTo(RateDecision.allowed());
  }

  @Test
  void anIdleDeviceGetsAFullBucketBack() {
    RateLimiter limiter = limiter(2);
    limiter.admit(phone);
    limiter.admit(phone);

    advance(Duration.ofMinutes(5));

    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isInstanceOf(RateDecision.Limited.class);
  }

  @Test
  void zeroTurnsTheLimitOff() {
    RateLimiter limiter = limiter(0);

    assertThat(IntStream.range(0, 1_000).mapToObj(i -> limiter.admit(phone)))
        .containsOnly(RateDecision.allowed());
  }

  @Test
  void retryAfterIsRoundedUpToWholeSeconds() {
    assertThat(new RateDecision.Limited(Duration.ofMillis(1)).retryAfterSeconds()).isEqualTo(1);
    assertThat(new RateDecision.Limited(Duration.ofSeconds(2)).retryAfterSeconds()).isEqualTo(2);
    assertThat(new RateDecision.Limited(Duration.ofMillis(2_001)).retryAfterSeconds()).isEqualTo(3);
    assertThatThrownBy(() -> new RateDecision.Limited(Duration.ZERO))
        .hasMessage("retryAfter must be positive: PT0S");
  }
}
