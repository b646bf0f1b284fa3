package dev.bolo.server.engine.offline;

/**
 * Band-limited sample-rate conversion by windowed-sinc interpolation (Smith, "Digital Audio
 * Resampling"). Downsampling low-pass filters at the new Nyquist frequency, so 44.1 kHz audio does
 * not alias into the recogniser's band.
 *
 * <p>Stateless and thread safe.
 */
final class Resampler {

  /** Zero crossings of the sinc on each side: 16 keeps ripple well below 16-bit resolution. */
  private static final int ZERO_CROSSINGS = 16;

  /** Table entries per zero crossing; linear interpolation between them. */
  private static final int RESOLUTION = 512;

  /** Passband edge as a share of the lower Nyquist frequency: room for the filter to roll off. */
  private static final double ROLL_OFF = 0.95;

  private static final float[] KERNEL = kernel();

  private Resampler() {}

  /** Converts {@code input} from {@code fromRate} to {@code toRate} samples per second. */
  static float[] resample(float[] input, int fromRate, int toRate) {
    if (fromRate == toRate) {
      return input;
    }
    double ratio = (double) toRate / fromRate;
    // Cutoff in cycles per input sample, relative to the input Nyquist frequency.
    double cutoff = Math.min(1.0, ratio) * ROLL_OFF;
    double halfWidth = ZERO_CROSSINGS / cutoff;
    int outLength = (int) Math.floor(input.length * ratio);
    float[] out = new float[outLength];
    for (int n = 0; n < outLength; n++) {
      double center = n / ratio;
      int first = Math.max(0, (int) Math.ceil(center - halfWidth));
      int last = Math.min(input.length - 1, (int) Math.floor(center + halfWidth));
      double sum = 0;
      for (int k = first; k <= last; k++) {
        sum += input[k] * kernelAt(Math.abs(center - k) * cutoff);
      }
      out[n] = (float) (sum * cutoff);
    }
    return out;
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
