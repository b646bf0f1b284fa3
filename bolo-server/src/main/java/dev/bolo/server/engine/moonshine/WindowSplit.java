package dev.bolo.server.engine.moonshine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits audio longer than a window into parts that fit, each cut at the quietest 20 ms of its last
 * third, so that a cut falls between words when there is any gap at all. Stateless.
 */
final class WindowSplit {

  /** 20 ms at 16 kHz: shorter than any word, longer than a pitch period. */
  private static final int FRAME = 320;

  private WindowSplit() {}

  /** {@code samples} itself when it fits in {@code window}, else consecutive parts that each do. */
  static List<float[]> parts(float[] samples, int window) {
    if (window < 3 * FRAME) {
      throw new IllegalArgumentException("window must be >= " + 3 * FRAME + ": " + window);
    }
    if (samples.length <= window) {
      return List.of(samples);
    }
    List<float[]> parts = new ArrayList<>();
    int start = 0;
    while (samples.length - start > window) {
      int cut = quietestFrameEnd(samples, start + window - window / 3, start + window);
      parts.add(Arrays.copyOfRange(samples, start, cut));
      start = cut;
    }
    parts.add(Arrays.copyOfRange(samples, start, samples.length));
    return parts;
  }

  /** The middle of the 20 ms frame in {@code [from, to)} with the least energy. */
  private static int quietestFrameEnd(float[] samples, int from, int to) {
    int best = to - FRAME / 2;
    double bestEnergy = Double.MAX_VALUE;
    for (int frame = from; frame + FRAME <= to; frame += FRAME) {
      double energy = 0;
      for (int i = frame; i < frame + FRAME; i++) {
        energy += samples[i] * samples[i];
      }
      if (energy < bestEnergy) {
        bestEnergy = energy;
        best = frame + FRAME / 2;
      }
    }
    return best;
  }
}
