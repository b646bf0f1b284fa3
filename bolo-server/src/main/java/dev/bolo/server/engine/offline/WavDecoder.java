package dev.bolo.server.engine.offline;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads a RIFF WAVE file of integer PCM (8, 16, 24 or 32 bit) or IEEE float (32 bit) at any rate
 * and channel count and turns it into what the recogniser's model was trained on: 16 kHz, mono,
 * signed 16-bit. Channels are averaged; the rate is changed with {@link Resampler}.
 *
 * <p>Stateless and thread safe.
 */
final class WavDecoder {

  /** The sample rate of Sphinx4's en-us acoustic model. */
  static final int TARGET_RATE = 16_000;

  private static final int FORMAT_PCM = 1;
  private static final int FORMAT_FLOAT = 3;
  private static final int FORMAT_EXTENSIBLE = 0xFFFE;
  // Beyond these a header is corrupt rather than unusual.
  private static final int MAX_CHANNELS = 64;
  private static final int MIN_RATE = 1_000;
  private static final int MAX_RATE = 768_000;

  private WavDecoder() {}

  /** Decodes a whole file held in memory. */
  static WavDecoding decode(byte[] file) {
    if (file.length < 12 || !ascii(file, 0).equals("RIFF") || !ascii(file, 8).equals("WAVE")) {
      return new WavDecoding.Malformed("not a RIFF WAVE file");
    }
    ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    Format format = null;
    int dataOffset = -1;
    int dataLength = 0;
    int position = 12;
    while (position + 8 <= file.length) {
      String id = ascii(file, position);
      long declared = Integer.toUnsignedLong(in.getInt(position + 4));
      int body = position + 8;
      // Streaming writers leave the size at 0 or 0xFFFFFFFF; a truncated upload ends early.
      int length = (int) Math.min(declared, file.length - body);
      if (id.equals("fmt ")) {
        if (length < 16) {
          return new WavDecoding.Malformed("fmt chunk too short: " + length + " bytes");
        }
        format = Format.read(in, body, length);
      } else if (id.equals("data")) {
        dataOffset = body;
        dataLength = declared == 0 || declared == 0xFFFFFFFFL ? file.length - body : length;
        break;
      }
      // Chunks are padded to an even length (RIFF specification).
      position = body + length + (length & 1);
    }
    if (format == null) {
      return new WavDecoding.Malformed("no fmt chunk before the audio data");
    }
    if (dataOffset < 0) {
      return new WavDecoding.Malformed("no data chunk");
    }
    String problem = format.problem();
    if (problem != null) {
      return new WavDecoding.Malformed(problem);
    }
    float[] mono = format.downmix(in, dataOffset, dataLength);
    float[] resampled = Resampler.resample(mono, format.sampleRate, TARGET_RATE);
    return new WavDecoding.Decoded(toShorts(resampled));
  }

  private static short[] toShorts(float[] samples) {
    short[] out = new short[samples.length];
    for (int i = 0; i < samples.length; i++) {
      float scaled = samples[i] * 32768f;
      out[i] = (short) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, Math.round(scaled)));
    }
    return out;
  }

  private static String ascii(byte[] bytes, int offset) {
    return new String(bytes, offset, 4, StandardCharsets.US_ASCII);
  }

  /** The fields of a {@code fmt } chunk that decoding needs. */
  private record Format(int tag, int channels, int sampleRate, int blockAlign, int bits) {

    static Format read(ByteBuffer in, int offset, int length) {
      int tag = Short.toUnsignedInt(in.getShort(offset));
      int channels = Short.toUnsignedInt(in.getShort(offset + 2));
      int rate = in.getInt(offset + 4);
      int blockAlign = Short.toUnsignedInt(in.getShort(offset + 12));
      int bits = Short.toUnsignedInt(in.getShort(offset + 14));
      // WAVE_FORMAT_EXTENSIBLE names the real format in the first two bytes of its sub-format GUID.
      if (tag == FORMAT_EXTENSIBLE && length >= 40) {
        tag = Short.toUnsignedInt(in.getShort(offset + 24));
      }
      return new Format(tag, channels, rate, blockAlign, bits);
    }

    /** Why this format cannot be decoded, or null when it can. */
    @Nullable String problem() {
      if (tag != FORMAT_PCM && tag != FORMAT_FLOAT) {
        return "WAV format tag " + tag + " is not PCM; only uncompressed PCM WAV is read";
      }
      if (channels < 1 || channels > MAX_CHANNELS) {
        return "WAV channel count out of range: " + channels;
      }
      if (sampleRate < MIN_RATE || sampleRate > MAX_RATE) {
        return "WAV sample rate out of range: " + sampleRate;
      }
      boolean supportedBits =
          tag == FORMAT_PCM ? bits == 8 || bits == 16 || bits == 24 || bits == 32 : bits == 32;
      if (!supportedBits) {
        return "unsupported WAV sample size: " + bits + " bits";
      }
      if (blockAlign != channels * (bits / 8)) {
        return "WAV block align "
            + blockAlign
            + " does not match "
            + channels
            + " channels of "
            + bits
            + " bits";
      }
      return null;
    }

    /** Averages the channels of every whole frame into samples in [-1, 1). */
    float[] downmix(ByteBuffer in, int offset, int length) {
      int frames = length / blockAlign;
      int bytes = bits / 8;
      float[] out = new float[frames];
      for (int frame = 0; frame < frames; frame++) {
        int base = offset + frame * blockAlign;
        float sum = 0;
        for (int channel = 0; channel < channels; channel++) {
          sum += sample(in, base + channel * bytes);
        }
        out[frame] = sum / channels;
      }
      return out;
    }

    private float sample(ByteBuffer in, int at) {
      return switch (bits) {
        case 8 -> (Byte.toUnsignedInt(in.get(at)) - 128) / 128f;
        case 16 -> in.getShort(at) / 32768f;
        case 24 -> {
          int value = (in.get(at) & 0xff) | (in.get(at + 1) & 0xff) << 8 | in.get(at + 2) << 16;
          yield value / 8388608f;
        }
        default -> tag == FORMAT_FLOAT ? in.getFloat(at) : in.getInt(at) / 2147483648f;
      };
    }
  }
}
