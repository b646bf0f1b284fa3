package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The training run the start-up cache is made from takes its notes through the real request path
 * and gets every one answered 200: a cache trained on error paths would prepare the wrong code.
 */
class AotTrainingTest {

  @Test
  void everyTrainingNoteIsAnsweredThroughTheRealGateway() throws Exception {
    assertThat(AotTraining.run(40)).isZero();
  }

  @Test
  void trainingNotesDifferSoEachIsNewWorkExceptTheResends() {
    assertThat(AotTraining.wav(1)).isNotEqualTo(AotTraining.wav(2));
    assertThat(AotTraining.wav(3)).isEqualTo(AotTraining.wav(3)).hasSize(200 * 1024);
  }
}
