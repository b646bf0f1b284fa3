package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class EngineLimitsTest {

  @Test
  void aNoteWithinBothLimitsAndTheFormAroundItGoesInOneRequest() {
    EngineLimits openAi = new EngineLimits(26_214_400, 1500);

    assertThat(openAi.admits(26_214_400 - EngineLimits.PROVIDER_FORM_BYTES, 1_500_000)).isTrue();
    assertThat(openAi.admits(26_214_400 - EngineLimits.PROVIDER_FORM_BYTES + 1, 1000)).isFalse();
    assertThat(openAi.admits(1000, 1_500_001)).isFalse();
  }

  @Test
  void noLimitOfLengthAdmitsTheLongestNote() {
    EngineLimits whisper = new EngineLimits(26_214_400, Long.MAX_VALUE);

    assertThat(whisper.admits(22_444, 700)).isTrue();
    assertThat(whisper.admits(22_444, Long.MAX_VALUE)).isTrue();
    assertThat(EngineLimits.NONE.admits(Long.MAX_VALUE / 2, Long.MAX_VALUE)).isTrue();
  }

  @Test
  void theOperatorsValuesReplaceTheProvidersWhereGiven() {
    EngineLimits given =
        new EngineLimits(26_214_400, 1500).overriddenBy(OptionalLong.empty(), OptionalLong.of(20));

    assertThat(given).isEqualTo(new EngineLimits(26_214_400, 20));
  }
}
