package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.Measurement;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class NoteMeasurementTest {

  @Test
  void aWavOfUnderAMillisecondIsEmptyAudio() {
    NoteMeasurement judged = NoteMeasurement.of(AudioContainer.WAV, new Measurement.Measured(0));

    assertThat(judged.refusal())
        .extracting(UploadResult.Invalid::reason)
        .isEqualTo(UploadResult.Reason.EMPTY_AUDIO);
  }

  @Test
  void anotherContainerMeasuredAtZeroIsSentOnItsFramesTimestampsSayNothingOfItsLength() {
    // One 20 ms Opus frame in WebM is measured from block timestamps as 0 ms.
    for (AudioContainer container : AudioContainer.values()) {
      if (container != AudioContainer.WAV) {
        NoteMeasurement judged = NoteMeasurement.of(container, new Measurement.Measured(0));
        assertThat(judged.refusal()).as(container.name()).isNull();
        assertThat(judged.duration()).isEqualTo(OptionalLong.of(0));
      }
    }
  }

  @Test
  void aWavOfOneMillisecondIsANote() {
    NoteMeasurement judged = NoteMeasurement.of(AudioContainer.WAV, new Measurement.Measured(1));

    assertThat(judged.refusal()).isNull();
    assertThat(judged.duration()).isEqualTo(OptionalLong.of(1));
  }
}
