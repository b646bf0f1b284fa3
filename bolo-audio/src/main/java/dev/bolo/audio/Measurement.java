package dev.bolo.audio;

import java.util.Objects;

/**
 * What {@link AudioDurations#measure} learnt about a note's length: the length, that the container
 * does not say it, or that its headers contradict themselves or the bytes.
 */
public sealed interface Measurement {

  /** The container says how long the note plays. */
  record Measured(long millis) implements Measurement {
    public Measured {
      if (millis < 0) {
        throw new IllegalArgumentException("millis must be >= 0: " + millis);
      }
    }
  }

  /**
   * The length cannot be read from this note (a compressed WAV, a FLAC stream without a sample
   * count, a cut-off header): not the sender's fault, so the caller falls back on an estimate.
   */
  record Unmeasurable(String reason) implements Measurement {
    public Unmeasurable {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The container's headers contradict themselves or the bytes (a WAV whose byte rate is not its
   * sample rate times its block size, a zero time scale): the note is refused as invalid audio.
   */
  record Contradicts(String message) implements Measurement {
    public Contradicts {
      Objects.requireNonNull(message, "message");
    }
  }
}
