package dev.bolo.server.audio;

import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.Measurement;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What the measurement of a whole note means for it, the same for a POST's note and a resumable
 * upload's: its duration (empty when the container does not tell), or why it is refused.
 */
record NoteMeasurement(OptionalLong duration, UploadResult.@Nullable Invalid refusal) {

  static NoteMeasurement of(AudioContainer container, Measurement measurement) {
    return switch (measurement) {
      // No sample at all (a WAV whose data chunk is empty): nothing to transcribe or charge.
      case Measurement.Measured measured when measured.millis() == 0 ->
          refused(
              UploadResult.Reason.EMPTY_AUDIO,
              "the " + container.extension() + " note holds no audio (0 ms)");
      case Measurement.Measured measured ->
          new NoteMeasurement(OptionalLong.of(measured.millis()), null);
      // The caller falls back on the claim or an estimate from the size.
      case Measurement.Unmeasurable unmeasurable -> new NoteMeasurement(OptionalLong.empty(), null);
      case Measurement.Contradicts contradicts ->
          refused(
              UploadResult.Reason.INVALID_AUDIO,
              "the "
                  + container.extension()
                  + " note's headers contradict its bytes: "
                  + contradicts.message());
    };
  }

  private static NoteMeasurement refused(UploadResult.Reason reason, String message) {
    return new NoteMeasurement(OptionalLong.empty(), new UploadResult.Invalid(reason, message));
  }
}
