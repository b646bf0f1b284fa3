package dev.bolo.server.engine.offline;

import java.io.IOException;
import java.util.Arrays;

/**
 * Band-limited sample-rate conversion by windowed-sinc interpolation (Smith, "Digital Audio
 * Resampling"). Downsampling low-pass filters at the new Nyquist frequency, so 44.1 kHz audio does
 * not alias into the recogniser's band.
 *
 * <p>Streaming: it pulls its input a window at a time and keeps only the input samples that the
 * filter still needs, so its memory is bounded by the filter's width and the window whatever the
 * note's length. Output sample {@code n} is the same number, bit for bit, as a conversion of the
 * whole signal at once gives: the same taps, summed in the same order; only at the end of the input
 * are the missing taps left out, as they are at the end of a whole signal.
 *
 * <p>Not thread safe: one note, read once.
 */
final class Resampler implements MonoSignal {

  /** Zero crossings of the sinc on each side: 16 keeps ripple well below 16-bit resolution. */
  private static final int ZERO_CROSSINGS = 16;

  /** Table entries per zero crossing; linear interpolation between them. */
  private static final int RESOLUTION = 512;

  /** Passband edge as a share of the lower Nyquist frequency: room for the filter to roll off. */
  private static final double ROLL_OFF = 0.95;

  /** Input samples asked for at a time, beyond the filter's own width. */
  private static final int WINDOW = 4096;

  private static final float[] KERNEL = kernel();

  private final MonoSignal input;
  private final double ratio;

  /** Cutoff in cycles per input sample, relative to the input Nyquist frequency. */
  private final double cutoff;

  /** How far from an output's center, in input samples, its taps reach. */
  private final double halfWidth;

  /** Input samples {@code [bufferStart, bufferStart + buffered)}. */
  private float[] buffer;

  private long bufferStart;
  private int buffered;
  private boolean inputEnded;

  /** The index of the next output sample. */
  private long next;

  private Resampler(MonoSignal input, int fromRate, int toRate) {
    this.input = input;
    this.ratio = (double) toRate / fromRate;
    this.cutoff = Math.min(1.0, ratio) * ROLL_OFF;
    this.halfWidth = ZERO_CROSSINGS / cutoff;
    // Every tap of one output plus a window: refilling then never needs to grow the buffer.
    this.buffer = new float[2 * (int) Math.ceil(halfWidth) + 2 + WINDOW];
  }

  /** {@code input}, sampled at {@code fromRate}, as seen at {@code toRate}. */
  static MonoSignal convert(MonoSignal input, int fromRate, int toRate) {
    return fromRate == toRate ? input : new Resampler(input, fromRate, toRate);
  }

  /** How many samples {@code inputLength} input samples become. */
  static long outputLength(long inputLength, int fromRate, int toRate) {
    if (fromRate == toRate) {
      return inputLength;
    }
    return (long) Math.floor(inputLength * ((double) toRate / fromRate));
  }

  @Override
  public int read(float[] into, int offset, int length) throws IOException {
    int written = 0;
    while (written < length) {
      double center = next / ratio;
      long first = Math.max(0, (long) Math.ceil(center - halfWidth));
      long last = (long) Math.floor(center + halfWidth);
      fill(first, last);
      if (inputEnded) {
        long total = bufferStart + buffered;
        if (next >= (long) Math.floor(total * ratio)) {
          break;
        }
        last = Math.min(last, total - 1);
      }
      double sum = 0;
      for (long k = first; k <= last; k++) {
        sum += buffer[(int) (k - bufferStart)] * kernelAt(Math.abs(center - k) * cutoff);
      }
      into[offset + written++] = (float) (sum * cutoff);
      next++;
    }
    return written == 0 && length > 0 ? -1 : written;
  }

  /** Reads input until sample {@code last} is held or the input ends. */
  private void fill(long first, long last) throws IOException {
    while (!inputEnded && bufferStart + buffered <= last) {
      // Outputs only move forward, and their first taps with them: nothing before this one is
      // needed again.
      int drop = (int) Math.min(buffered, Math.max(0, first - bufferStart));
      if (drop > 0) {
        System.arraycopy(buffer, drop, buffer, 0, buffered - drop);
        buffered -= drop;
        bufferStart += drop;
      }
      if (buffered == buffer.length) {
        buffer = Arrays.copyOf(buffer, 2 * buffer.length);
      }
      int read = input.read(buffer, buffered, buffer.length - buffered);
      if (read < 0) {
        inputEnded = true;
      } else {
        buffered += read;
      }
    }
  }

  /** The windowed sinc at {@code crossings} zero crossings from its center. */
  private static double kernelAt(double crossings) {
    double index = crossings * RESOLUTION;
    int lower = (int) index;
    if (lower >= KERNEL.length - 1) {
      return 0;
    }
    double fraction = index - lower;
    return KERNEL[lower] + fraction * (KERNEL[lower + 1] - KERNEL[lower]);
  }

  private static float[] kernel() {
    float[] table = new float[ZERO_CROSSINGS * RESOLUTION + 1];
    for (int i = 0; i < table.length; i++) {
      double x = (double) i / RESOLUTION;
      double sinc = i == 0 ? 1.0 : Math.sin(Math.PI * x) / (Math.PI * x);
      double z = x / ZERO_CROSSINGS;
      // Blackman window over [-ZERO_CROSSINGS, ZERO_CROSSINGS].
      double window = 0.42 + 0.5 * Math.cos(Math.PI * z) + 0.08 * Math.cos(2 * Math.PI * z);
      table[i] = (float) (sinc * window);
    }
    return table;
  }
}
