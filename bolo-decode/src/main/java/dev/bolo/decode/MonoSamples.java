package dev.bolo.decode;

import java.io.IOException;

/** Mono samples read in order, as floats in [-1, 1]. Read by one thread at a time. */
public interface MonoSamples {

  /** Samples per second. */
  int sampleRate();

  /**
   * Reads up to {@code length} samples into {@code into} at {@code offset}.
   *
   * @return how many were read, at least one when {@code length} is positive, or -1 at the end
   * @throws UndecodableAudioException when the note turns out not to be decodable audio
   * @throws IOException when its bytes cannot be read
   */
  int read(float[] into, int offset, int length) throws IOException;

  /** Samples held in memory, read from the first; {@code samples} is not copied. */
  static MonoSamples of(float[] samples, int sampleRate) {
    return new MonoSamples() {
      private int position;

      @Override
      public int sampleRate() {
        return sampleRate;
      }

      @Override
      public int read(float[] into, int offset, int length) {
        if (length == 0) {
          return 0;
        }
        if (position == samples.length) {
          return -1;
        }
        int count = Math.min(length, samples.length - position);
        System.arraycopy(samples, position, into, offset, count);
        position += count;
        return count;
      }
    };
  }
}
