package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ResendPolicyTest {

  private static final ResendPolicy STANDARD = ResendPolicy.standard();

  static IntStream seeds() {
    return IntStream.range(0, 200);
  }

  /** Property: for any seed, every jittered pause lies in [0.8, 1.2) of the scheduled one. */
  @ParameterizedTest
  @MethodSource("seeds")
  void everyJitteredPauseStaysWithinTwentyPercent(int seed) {
    Random random = new Random(seed);
    for (int attempt = 2; attempt <= 4; attempt++) {
      long scheduled = STANDARD.pauses().get(attempt - 2).toNanos();
      long pause = STANDARD.pauseBefore(attempt, random).toNanos();
      assertThat(pause).isBetween(Math.round(scheduled * 0.8), Math.round(scheduled * 1.2));
    }
  }

  @Test
  void jitterSpreadsPausesAcrossTheWholeBandNotOnlyOneSide() {
    Random random = new Random(7);
    long below = 0;
    long above = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < 10_000; i++) {
      long pause = STANDARD.pauseBefore(2, random).toMillis();
      below += pause < 2000 ? 1 : 0;
      above += pause > 2000 ? 1 : 0;
      min = Math.min(min, pause);
      max = Math.max(max, pause);
    }
    // A fleet must not come back together: about half early, half late, reaching near the bounds.
    assertThat(below).isBetween(4_500L, 5_500L);
    assertThat(above).isBetween(4_500L, 5_500L);
    assertThat(min).isLessThan(1_610);
    assertThat(max).isGreaterThan(2_390);
  }

  @Test
  void withoutJitterPausesAreExact() {
    ResendPolicy exact = STANDARD.withoutJitter();
    Random random = new Random(3);

    assertThat(exact.pauseBefore(2, random)).isEqualTo(Duration.ofSeconds(2));
    assertThat(exact.pauseBefore(3, random)).isEqualTo(Duration.ofSeconds(5));
    assertThat(exact.pauseBefore(4, random)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void standardPolicyIsFourAttemptsWithinNinetySeconds() {
    assertThat(STANDARD.maxAttempts()).isEqualTo(4);
    assertThat(STANDARD.window()).isEqualTo(Duration.ofSeconds(90));
    assertThat(STANDARD.jitter()).isEqualTo(0.2);
  }

  @Test
  void invalidPoliciesAreRejectedWithTheirValues() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().maxAttempts(0))
        .withMessage("maxAttempts must be >= 1: 0");
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> ResendPolicy.builder().maxAttempts(3).pauses(Duration.ofSeconds(1)).build())
        .withMessage("need a pause before each of 2 resends: [PT1S]");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().pauses(Duration.ofSeconds(-1)))
        .withMessage("pauses must not be negative: [PT-1S]");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().jitter(1.0))
        .withMessage("jitter must be in [0, 1): 1.0");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().jitter(Double.NaN))
        .withMessage("jitter must be in [0, 1): NaN");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().window(Duration.ZERO))
        .withMessage("window must be positive: PT0S");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().transientStatuses(503, 200))
        .withMessage("transientStatuses must be error statuses in [400, 999]: 200");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResendPolicy.builder().transientStatuses(503, 429).build())
        .withMessage("a status is either always resent or only with Retry-After, not both: [429]");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> STANDARD.pauseBefore(5, new Random()))
        .withMessage("attempt must be in [2, 4]: 5");
  }

  @Test
  void theBuilderStartsFromTheStandardPolicyAndChangesOnlyWhatItIsTold() {
    ResendPolicy custom =
        ResendPolicy.builder()
            .maxAttempts(2)
            .pauses(Duration.ofMillis(500))
            .window(Duration.ofSeconds(20))
            .transientStatuses(503)
            .build();

    assertThat(ResendPolicy.builder().build()).isEqualTo(STANDARD);
    assertThat(custom.maxAttempts()).isEqualTo(2);
    assertThat(custom.pauses()).containsExactly(Duration.ofMillis(500));
    assertThat(custom.jitter()).isEqualTo(0.2);
    assertThat(custom.window()).isEqualTo(Duration.ofSeconds(20));
    assertThat(custom.transientStatuses()).containsExactly(503);
    assertThat(custom.retryAfterStatuses()).containsExactly(429);
    assertThat(custom.toBuilder().build()).isEqualTo(custom).isNotEqualTo(STANDARD);
  }

  @Test
  void theStandardTransientSetIsTheGatewaysResendableStatusesAndNetworkFailures() {
    for (int status = 100; status <= 999; status++) {
      Failure.Http plain = new Failure.Http(status, null, "x", null, null);
      Failure.Http withRetryAfter = new Failure.Http(status, null, "x", null, Duration.ZERO);
      boolean expected =
          status == 500
              || status == 502
              || status == 503
              || status == 504
              || (status >= 520 && status <= 524);
      assertThat(STANDARD.isTransient(plain)).as("status %d", status).isEqualTo(expected);
      assertThat(STANDARD.isTransient(withRetryAfter))
          .as("status %d with Retry-After", status)
          .isEqualTo(expected || status == 429);
    }
    for (Failure.NetworkKind kind : Failure.NetworkKind.values()) {
      assertThat(STANDARD.isTransient(new Failure.Network(kind, "x")))
          .as("%s", kind)
          .isEqualTo(kind != Failure.NetworkKind.TLS && kind != Failure.NetworkKind.PROTOCOL);
    }
  }

  @Test
  void aCustomTransientSetIsWhatDecides() {
    ResendPolicy onlyGatewayTimeouts =
        ResendPolicy.builder().transientStatuses(504).retryAfterStatuses().build();

    assertThat(onlyGatewayTimeouts.isTransient(new Failure.Http(504, null, "x", null, null)))
        .isTrue();
    assertThat(onlyGatewayTimeouts.isTransient(new Failure.Http(503, null, "x", null, null)))
        .isFalse();
    assertThat(
            onlyGatewayTimeouts.isTransient(
                new Failure.Http(429, null, "x", null, Duration.ofSeconds(1))))
        .isFalse();
  }

  @Test
  void aLookupThatFoundTheWorkRunningIsAskedAgainButNoOtherSuccessStatusIs() {
    ResendPolicy policy = ResendPolicy.standard();
    assertThat(policy.isTransient(new Failure.Http(202, "running", "still running", null, null)))
        .isTrue();
    assertThat(policy.isTransient(new Failure.Http(202, null, "accepted", null, null))).isFalse();
    assertThat(
            policy.isTransient(
                new Failure.Http(200, "invalid_response", "not a transcript", null, null)))
        .isFalse();
  }
}
