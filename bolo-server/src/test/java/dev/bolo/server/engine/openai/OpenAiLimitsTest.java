package dev.bolo.server.engine.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.EngineLimits;
import org.junit.jupiter.api.Test;

class OpenAiLimitsTest {

  @Test
  void everyModelTakesRequestsOf25MegabytesAndTheGpt4oModels1500Seconds() {
    assertThat(OpenAiLimits.forModel("whisper-1"))
        .isEqualTo(new EngineLimits(26_214_400, Long.MAX_VALUE));
    assertThat(OpenAiLimits.forModel("gpt-4o-transcribe"))
        .isEqualTo(new EngineLimits(26_214_400, 1500));
    assertThat(OpenAiLimits.forModel("GPT-4o-mini-transcribe"))
        .isEqualTo(new EngineLimits(26_214_400, 1500));
    assertThat(OpenAiLimits.forModel("gpt-4o").maxSeconds()).isEqualTo(Long.MAX_VALUE);
  }
}
