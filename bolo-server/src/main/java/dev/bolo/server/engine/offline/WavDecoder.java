package dev.bolo.server.engine.offline;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads a RIFF WAVE file of integer PCM (8, 16, 24 or 32 bit) or IEEE float (32 bit) at any rate
 * and channel count and turns it into what the recogniser's model was trained on: 16 kHz, mono,
 * signed 16-bit. Channels are averaged; the rate is changed with {@link Resampler}.
 *
 * <p>The header is read at once; the audio is decoded as the recogniser reads it, a window of
 * frames at a time, so a note of any length takes the same few kilobytes.
 *
 * <p>Stateless and thread safe; each {@link WavDecoding.Decoded} it returns is not.
 */
final class WavDecoder {

  /** The sample rate of Sphinx4's en-us acoustic model. */
  static final int TARGET_RATE = 16_000;

  /** Bytes of the file read at a time: a few thousand frames of the usual formats. */
  static final int WINDOW_BYTES = 16 * 1024;

  private static final int FORMAT_PCM = 1;
  private static final int FORMAT_FLOAT = 3;
  private static final int FORMAT_EXTENSIBLE = 0xFFFE;
  // Beyond these a header is corrupt rather than unusual.
  private static final int MAX_CHANNELS = 64;
  private static final int MIN_RATE = 1_000;
  private static final int MAX_RATE = 768_000;

  /** The longest {@code fmt } chunk read: WAVE_FORMAT_EXTENSIBLE's. */
  private static final int FORMAT_BYTES = 40;

  private WavDecoder() {}

  /**
   * Reads the header of a file of {@code size} bytes from {@code in}, leaving {@code in} at the
   * start of the audio, which the returned decoding reads on demand. The caller closes {@code in}
   * once it has read what it needs.
   *
   * @throws IOException when {@code in} cannot be read
   */
  static WavDecoding open(InputStream in, long size) throws IOException {
    byte[] riff = in.readNBytes(12);
    if (riff.length < 12 || !ascii(riff, 0).equals("RIFF") || !ascii(riff, 8).equals("WAVE")) {
      return new WavDecoding.Malformed("not a RIFF WAVE file");
    }
    Format format = null;
    long position = 12;
    while (position + 8 <= size) {
      byte[] header = in.readNBytes(8);
      if (header.length < 8) {
        break;
      }
      String id = ascii(header, 0);
      long declared = Integer.toUnsignedLong(littleEndian(header).getInt(4));
      long body = position + 8;
      // Streaming writers leave the size at 0 or 0xFFFFFFFF; a truncated upload ends early.
      long length = Math.min(declared, size - body);
      if (id.equals("data")) {
        long dataLength = declared == 0 || declared == 0xFFFFFFFFL ? size - body : length;
        return decoded(in, format, dataLength);
      }
      long skip = length;
      if (id.equals("fmt ")) {
        byte[] chunk = in.readNBytes((int) Math.min(length, FORMAT_BYTES));
        if (chunk.length < 16) {
          return new WavDecoding.Malformed("fmt chunk too short: " + chunk.length + " bytes");
        }
        format = Format.read(littleEndian(chunk), chunk.length);
        skip -= chunk.length;
      }
      // Chunks are padded to an even length (RIFF specification).
      skip(in, skip + (length & 1));
      position = body + length + (length & 1);
    }
    if (format == null) {
      return new WavDecoding.Malformed("no fmt chunk before the audio data");
    }
    return new WavDecoding.Malformed("no data chunk");
  }

  private static WavDecoding decoded(InputStream in, @Nullable Format format, long dataLength) {
    if (format == null) {
      return new WavDecoding.Malformed("no fmt chunk before the audio data");
    }
    String problem = format.problem();
    if (problem != null) {
      return new WavDecoding.Malformed(problem);
    }
    long frames = dataLength / format.blockAlign;
    long samples = Resampler.outputLength(frames, format.sampleRate, TARGET_RATE);
    MonoSignal mono = new Frames(in, format, dataLength);
    return new WavDecoding.Decoded(
        new NoteSamples(Resampler.convert(mono, format.sampleRate, TARGET_RATE)),
        samples * 1000 / TARGET_RATE);
  }

  private static void skip(InputStream in, long count) throws IOException {
    long left = count;
    while (left > 0) {
      long skipped = in.skip(left);
      if (skipped <= 0) {
        // skip() may refuse without being at the end; read() tells.
        if (in.read() < 0) {
          return;
        }
        skipped = 1;
      }
      left -= skipped;
    }
  }

  private static ByteBuffer littleEndian(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static String ascii(byte[] bytes, int offset) {
    return new String(bytes, offset, 4, StandardCharsets.US_ASCII);
  }

  /** The fields of a {@code fmt } chunk that decoding needs. */
  private record Format(int tag, int channels, int sampleRate, int blockAlign, int bits) {

    static Format read(ByteBuffer in, int length) {
      int tag = Short.toUnsignedInt(in.getShort(0));
      int channels = Short.toUnsignedInt(in.getShort(2));
      int rate = in.getInt(4);
      int blockAlign = Short.toUnsignedInt(in.getShort(12));
      int bits = Short.toUnsignedInt(in.getShort(14));
      // WAVE_FORMAT_EXTENSIBLE names the real format in the first two bytes of its sub-format GUID.
      if (tag == FORMAT_EXTENSIBLE && length >= FORMAT_BYTES) {
        tag = Short.toUnsignedInt(in.getShort(24));
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

    /** The average of the channels of the frame at {@code base}, in [-1, 1). */
    float downmix(ByteBuffer in, int base) {
      int bytes = bits / 8;
      float sum = 0;
      for (int channel = 0; channel < channels; channel++) {
        sum += sample(in, base + channel * bytes);
      }
      return sum / channels;
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

  /**
   * The data chunk's whole frames, each averaged to one sample, read a window at a time. A read of
   * the file may end inside a frame; its bytes wait for the rest. A partial frame at the very end
   * is dropped.
   */
  private static final class Frames implements MonoSignal {
    private final InputStream in;
    private final Format format;
    private final byte[] window;
    private final ByteBuffer view;

    /** Bytes of the data chunk not read yet. */
    private long remaining;

    /** Bytes at the start of {@link #window} read but not yet decoded. */
    private int held;

    Frames(InputStream in, Format format, long dataLength) {
      this.in = in;
      this.format = format;
      this.remaining = dataLength;
      this.window = new byte[Math.max(1, WINDOW_BYTES / format.blockAlign) * format.blockAlign];
      this.view = littleEndian(window);
    }

    @Override
    public int read(float[] into, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      int blockAlign = format.blockAlign;
      while (held < blockAlign) {
        int room = (int) Math.min(window.length - held, remaining);
        int read = room == 0 ? -1 : in.read(window, held, room);
        if (read < 0) {
          return -1;
        }
        held += read;
        remaining -= read;
      }
      int frames = Math.min(length, held / blockAlign);
      for (int frame = 0; frame < frames; frame++) {
        into[offset + frame] = format.downmix(view, frame * blockAlign);
      }
      int used = frames * blockAlign;
      System.arraycopy(window, used, window, 0, held - used);
      held -= used;
      return frames;
    }
  }
}
