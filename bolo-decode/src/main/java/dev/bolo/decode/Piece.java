package dev.bolo.decode;

/**
 * A stretch of a note between pauses: its samples and where it starts in the note, so that what is
 * recognised in it can be timed against the whole note.
 *
 * <p>The array belongs to the piece and is handed over, not copied: its holder must not change it.
 */
public final class Piece {

  private final long startSample;
  private final float[] samples;
  private final int sampleRate;

  Piece(long startSample, float[] samples, int sampleRate) {
    if (startSample < 0) {
      throw new IllegalArgumentException("startSample must be >= 0: " + startSample);
    }
    this.startSample = startSample;
    this.samples = samples;
    this.sampleRate = sampleRate;
  }

  /** The first sample's position in the note. */
  public long startSample() {
    return startSample;
  }

  /** The samples, mono floats in [-1, 1]; not a copy. */
  public float[] samples() {
    return samples;
  }

  /** Samples per second. */
  public int sampleRate() {
    return sampleRate;
  }

  /** Where the piece starts in the note, in milliseconds. */
  public long startMillis() {
    return startSample * 1000 / sampleRate;
  }

  /** Where the piece ends in the note, in milliseconds. */
  public long endMillis() {
    return (startSample + samples.length) * 1000 / sampleRate;
  }

  @Override
  public String toString() {
    return "Piece[" + startMillis() + " ms to " + endMillis() + " ms]";
  }
}
