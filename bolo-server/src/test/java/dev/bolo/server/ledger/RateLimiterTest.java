package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Device phone = new Device("phone");

  @Test
  void aDeviceMayBurstAMinutesWorthThenWaitsForTheNextToken() {
    RateLimiter limiter = RateLimiter.perMinute(60, nanos::get);

    assertThat(IntStream.range(0, 60).mapToObj(i -> limiter.admit(phone)))
        .containsOnly(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isEqualTo(new RateDecision.Limited(Duration.ofSeconds(1)));

    nanos.addAndGet(Duration.ofMillis(400).toNanos());
    assertThat(limiter.admit(phone)).isEqualTo(new RateDecision.Limited(Duration.ofMillis(600)));

    nanos.addAndGet(Duration.ofMillis(600).toNanos());
    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isInstanceOf(RateDecision.Limited.class);
  }

  @Test
  void eachDeviceHasItsOwnBucket() {
    RateLimiter limiter = RateLimiter.perMinute(1, nanos::get);

    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isInstanceOf(RateDecision.Limited.class);
    assertThat(limiter.admit(new Device("tablet"))).isEqualTo(RateDecision.allowed());
  }

  @Test
  void anIdleDeviceGetsAFullBucketBack() {
    RateLimiter limiter = RateLimiter.perMinute(2, nanos::get);
    limiter.admit(phone);
    limiter.admit(phone);

    nanos.addAndGet(Duration.ofMinutes(5).toNanos());

    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isEqualTo(RateDecision.allowed());
    assertThat(limiter.admit(phone)).isInstanceOf(RateDecision.Limited.class);
  }

  @Test
  void zeroTurnsTheLimitOff() {
    RateLimiter limiter = RateLimiter.perMinute(0, nanos::get);

    assertThat(IntStream.range(0, 10_000).mapToObj(i -> limiter.admit(phone)))
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
