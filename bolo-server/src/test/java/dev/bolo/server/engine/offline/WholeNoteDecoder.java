package dev.bolo.server.engine.offline;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The decoder as it was before it streamed, kept as the reference the streaming one must match: the
 * whole file in memory, every frame downmixed into one array, resampled into another, and converted
 * to 16-bit at the end. For well-formed files only.
 */
final class WholeNoteDecoder {

  private static final int ZERO_CROSSINGS = 16;
  private static final int RESOLUTION = 512;
  private static final double ROLL_OFF = 0.95;
  private static final float[] KERNEL = kernel();

  private WholeNoteDecoder() {}

  static short[] decode(byte[] file) {
    ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int tag = 0;
    int channels = 0;
    int rate = 0;
    int bits = 0;
    int position = 12;
    while (position + 8 <= file.length) {
      String id = new String(file, position, 4, StandardCharsets.US_ASCII);
      long declared = Integer.toUnsignedLong(in.getInt(position + 4));
      int body = position + 8;
      int length = (int) Math.min(declared, file.length - body);
      if (id.equals("fmt ")) {
        tag = Short.toUnsignedInt(in.getShort(body));
        channels = Short.toUnsignedInt(in.getShort(body + 2));
        rate = in.getInt(body + 4);
        bits = Short.toUnsignedInt(in.getShort(body + 14));
        if (tag == 0xFFFE && length >= 40) {
          tag = Short.toUnsignedInt(in.getShort(body + 24));
        }
      } else if (id.equals("data")) {
        int dataLength = declared == 0 || declared == 0xFFFFFFFFL ? file.length - body : length;
        float[] mono = downmix(in, body, dataLength, tag, channels, bits);
        return toShorts(resample(mono, rate, WavDecoder.TARGET_RATE));
      }
      position = body + length + (length & 1);
    }
    throw new IllegalArgumentException("no data chunk");
  }

  private static float[] downmix(
      ByteBuffer in, int offset, int length, int tag, int channels, int bits) {
    int bytes = bits / 8;
    int blockAlign = channels * bytes;
    int frames = length / blockAlign;
    float[] out = new float[frames];
    for (int frame = 0; frame < frames; frame++) {
      int base = offset + frame * blockAlign;
      float sum = 0;
      for (int channel = 0; channel < channels; channel++) {
        sum += sample(in, base + channel * bytes, tag, bits);
      }
      out[frame] = sum / channels;
    }
    return out;
  }

  private static float sample(ByteBuffer in, int at, int tag, int bits) {
    return switch (bits) {
      case 8 -> (Byte.toUnsignedInt(in.get(at)) - 128) / 128f;
      case 16 -> in.getShort(at) / 32768f;
      case 24 -> {
        int value = (in.get(at) & 0xff) | (in.get(at + 1) & 0xff) << 8 | in.get(at + 2) << 16;
        yield value / 8388608f;
      }
      default -> tag == 3 ? in.getFloat(at) : in.getInt(at) / 2147483648f;
    };
  }

  static float[] resample(float[] input, int fromRate, int toRate) {
    if (fromRate == toRate) {
      return input;
    }
    double ratio = (double) toRate / fromRate;
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
      double window = 0.42 + 0.5 * Math.cos(Math.PI * z) + 0.08 * Math.cos(2 * Math.PI * z);
      table[i] = (float) (sinc * window);
    }
    return table;
  }

  private static short[] toShorts(float[] samples) {
    short[] out = new short[samples.length];
    for (int i = 0; i < samples.length; i++) {
      float scaled = samples[i] * 32768f;
      out[i] = (short) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, Math.round(scaled)));
    }
    return out;
  }
}
