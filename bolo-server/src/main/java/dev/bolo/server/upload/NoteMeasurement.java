package dev.bolo.server.upload;

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
      // A WAV is measured exactly from its samples: under a millisecond of them (none, say,
      // after a header) holds nothing to transcribe or charge. Other containers are measured
      // from their frames' timestamps, which say 0 for a note of one short frame: sent on.
      case Measurement.Measured measured
          when measured.millis() == 0 && container == AudioContainer.WAV ->
          refused(
              UploadResult.Reason.EMPTY_AUDIO,
              "the wav note holds less than a millisecond of audio: nothing to transcribe");
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
