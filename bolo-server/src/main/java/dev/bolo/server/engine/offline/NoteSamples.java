package dev.bolo.server.engine.offline;

import dev.bolo.decode.MonoSamples;

/**
 * A piece of a note as the recogniser hears it: 16 kHz mono, as the decoded floats ({@link
 * #floats}) or as signed 16-bit samples converted a window at a time as they are read. Read once,
 * in order. Not thread safe.
 */
final class NoteSamples {

  /** The rate the recogniser's acoustic model was trained at. */
  static final int RATE = 16_000;

  private final float[] samples;
  private int position;

  /**
   * @param samples mono floats in [-1, 1] at {@link #RATE}; not copied
   */
  NoteSamples(float[] samples) {
    this.samples = samples;
  }

  /**
   * Reads up to {@code length} samples into {@code into} from {@code offset}.
   *
   * @return how many were read, at least one when {@code length} is positive, or -1 at the end
   */
  int read(short[] into, int offset, int length) {
    if (length == 0) {
      return 0;
    }
    if (position == samples.length) {
      return -1;
    }
    int count = Math.min(length, samples.length - position);
    for (int i = 0; i < count; i++) {
      float scaled = samples[position + i] * 32768f;
      into[offset + i] =
          (short) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, Math.round(scaled)));
    }
    position += count;
    return count;
  }

  /** The piece as floats in [-1, 1], read from its start; apart from {@link #read}. */
  MonoSamples floats() {
    return MonoSamples.of(samples, RATE);
  }
}
