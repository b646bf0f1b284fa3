package dev.bolo.server.engine.offline;

import java.io.IOException;

/**
 * Mono samples in [-1, 1) at a fixed rate, read once, in order, a window at a time: the stages
 * between a WAV file and the recogniser pull from each other through this, so none of them holds
 * more of a note than its window. Not thread safe.
 */
interface MonoSignal {

  /**
   * Reads up to {@code length} samples into {@code into} from {@code offset}.
   *
   * @return how many were read, at least one when {@code length} is positive, or -1 at the end
   * @throws IOException when the underlying file cannot be read
   */
  int read(float[] into, int offset, int length) throws IOException;
}
