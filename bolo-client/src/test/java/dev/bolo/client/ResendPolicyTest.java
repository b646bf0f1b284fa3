package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
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
    List<Duration> pauses = List.of(Duration.ofSeconds(1));
    Duration window = Duration.ofSeconds(10);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ResendPolicy(0, pauses, 0, window))
        .withMessage("maxAttempts must be >= 1: 0");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ResendPolicy(3, pauses, 0, window))
        .withMessageContaining("2 resends");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ResendPolicy(2, pauses, 1.0, window))
        .withMessage("jitter must be in [0, 1): 1.0");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ResendPolicy(2, pauses, 0, Duration.ZERO))
        .withMessage("window must be positive: PT0S");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> STANDARD.pauseBefore(5, new Random()))
        .withMessage("attempt must be in [2, 4]: 5");
  }
}
