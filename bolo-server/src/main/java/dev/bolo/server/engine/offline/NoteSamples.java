package dev.bolo.server.engine.offline;

import java.io.IOException;

/**
 * A note as the recogniser hears it: 16 kHz mono signed 16-bit samples, decoded from the file a
 * window at a time as they are read. Read once, in order. Not thread safe.
 */
final class NoteSamples {

  /** Samples converted at a time. */
  private static final int WINDOW = 4096;

  private final MonoSignal signal;
  private final float[] window = new float[WINDOW];

  /**
   * @param signal the note at {@link WavDecoder#TARGET_RATE}
   */
  NoteSamples(MonoSignal signal) {
    this.signal = signal;
  }

  /**
   * Reads up to {@code length} samples into {@code into} from {@code offset}.
   *
   * @return how many were read, at least one when {@code length} is positive, or -1 at the end
   * @throws IOException when the file cannot be read
   */
  int read(short[] into, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    int count = signal.read(window, 0, Math.min(length, WINDOW));
    for (int i = 0; i < count; i++) {
      float scaled = window[i] * 32768f;
      into[offset + i] =
          (short) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, Math.round(scaled)));
    }
    return count;
  }
}
