package dev.bolo.audio;

import org.jspecify.annotations.Nullable;

/**
 * A RIFF/WAVE note's length from its {@code fmt } chunk's sample rate and block size and the size
 * of its {@code data} chunk. The header's byte rate is never used for the length: it is one more
 * number a sender could set, so it is only checked against the rate and block size it must equal.
 */
final class WavDuration {

  /** Real files have a handful of chunks; anything past this is not a voice note. */
  private static final int MAX_CHUNKS = 1024;

  /** Above the highest rate any converter offers (768 kHz). */
  private static final long MAX_SAMPLE_RATE = 768_000;

  /** Streaming writers leave the data size at one of these and write to the end of the file. */
  private static final long UNKNOWN_SIZE_ZERO = 0;

  private static final long UNKNOWN_SIZE_ONES = 0xFFFF_FFFFL;

  private static final int FORMAT_PCM = 0x0001;
  private static final int FORMAT_IEEE_FLOAT = 0x0003;
  private static final int FORMAT_ALAW = 0x0006;
  private static final int FORMAT_MULAW = 0x0007;
  private static final int FORMAT_EXTENSIBLE = 0xFFFE;

  private WavDuration() {}

  /** The fields of a {@code fmt } chunk that the length depends on. */
  private record Format(
      int tag, int channels, long sampleRate, long byteRate, int blockAlign, int bits) {}

  static Measurement measure(Cursor in) {
    in.seek(0);
    if (!in.consume("RIFF")) {
      throw new ParseStop.Unreadable("no RIFF header");
    }
    in.skip(4);
    if (!in.consume("WAVE")) {
      throw new ParseStop.Unreadable("a RIFF file that is not WAVE");
    }
    @Nullable Format format = null;
    long dataBytes = -1;
    for (int chunks = 0; chunks < MAX_CHUNKS && in.remaining() >= 8; chunks++) {
      String id = in.fourcc();
      long size = in.u32le();
      long body = in.position();
      if (id.equals("fmt ")) {
        format = format(in, size);
      } else if (id.equals("data")) {
        long available = in.size() - body;
        boolean streamed = size == UNKNOWN_SIZE_ZERO || size == UNKNOWN_SIZE_ONES;
        dataBytes = streamed ? available : Math.min(size, available);
        if (streamed) {
          // The data runs to the end of the file; nothing after it is a chunk.
          break;
        }
      }
      if (format != null && dataBytes >= 0) {
        break;
      }
      // RIFF pads every chunk to an even size.
      in.seek(body);
      in.skip(size + (size & 1));
    }
    if (format == null) {
      return new Measurement.Unmeasurable("a WAV without a fmt chunk");
    }
    if (dataBytes < 0) {
      return new Measurement.Unmeasurable("a WAV without a data chunk");
    }
    long frames = dataBytes / format.blockAlign();
    return new Measurement.Measured(Millis.of(frames, format.sampleRate(), "the WAV sample rate"));
  }

  private static Format format(Cursor in, long size) {
    // Guard: the 16 bytes of WAVEFORMAT are the least any fmt chunk has.
    if (size < 16) {
      throw new ParseStop.Contradiction("the WAV fmt chunk has " + size + " bytes, fewer than 16");
    }
    int tag = in.u16le();
    int channels = in.u16le();
    long sampleRate = in.u32le();
    long byteRate = in.u32le();
    int blockAlign = in.u16le();
    int bits = in.u16le();
    if (tag == FORMAT_EXTENSIBLE && size >= 40) {
      // WAVE_FORMAT_EXTENSIBLE: cbSize, valid bits, channel mask, then the sub-format GUID whose
      // first two bytes are the real format tag.
      in.skip(8);
      tag = in.u16le();
    }
    Format format = new Format(tag, channels, sampleRate, byteRate, blockAlign, bits);
    check(format);
    return format;
  }

  /** Each field that the length or a decoder depends on, checked against the others. */
  private static void check(Format f) {
    // A decoder divides by each of these; a zero makes the note unplayable, not free.
    if (f.channels() == 0) {
      throw new ParseStop.Contradiction("the WAV header says 0 channels");
    }
    if (f.sampleRate() == 0) {
      throw new ParseStop.Contradiction("the WAV header says a sample rate of 0 Hz");
    }
    if (f.blockAlign() == 0) {
      throw new ParseStop.Contradiction("the WAV header says a block size of 0 bytes");
    }
    if (f.sampleRate() > MAX_SAMPLE_RATE) {
      throw new ParseStop.Contradiction(
          "the WAV header says a sample rate of " + f.sampleRate() + " Hz, beyond any audio");
    }
    boolean uncompressed =
        f.tag() == FORMAT_PCM
            || f.tag() == FORMAT_IEEE_FLOAT
            || f.tag() == FORMAT_ALAW
            || f.tag() == FORMAT_MULAW;
    if (!uncompressed) {
      // ADPCM, GSM, MP3-in-WAV: the length needs the codec's frame layout; say so, do not guess.
      throw new ParseStop.Unreadable(String.format("a WAV in compressed format 0x%04x", f.tag()));
    }
    // Uncompressed samples: a block is one sample of every channel, a whole number of bytes each.
    long expectedAlign = (long) f.channels() * ((f.bits() + 7) / 8);
    if (f.bits() == 0 || f.blockAlign() != expectedAlign) {
      throw new ParseStop.Contradiction(
          "the WAV header says "
              + f.channels()
              + " channels of "
              + f.bits()
              + " bits but a block size of "
              + f.blockAlign()
              + " bytes");
    }
    long expectedRate = f.sampleRate() * f.blockAlign();
    if (f.byteRate() != expectedRate) {
      throw new ParseStop.Contradiction(
          "the WAV header's byte rate "
              + f.byteRate()
              + " is not its sample rate "
              + f.sampleRate()
              + " times its block size "
              + f.blockAlign()
              + " ("
              + expectedRate
              + ")");
    }
  }
}
