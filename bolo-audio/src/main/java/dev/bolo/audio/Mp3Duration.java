package dev.bolo.audio;

import org.jspecify.annotations.Nullable;

/**
 * An MPEG audio note's length: from the Xing/Info or VBRI header's frame count when the first frame
 * carries one, otherwise from a walk over every frame header (4 bytes read per frame).
 */
final class Mp3Duration {

  /** Encoders put the first frame right after the tags; a little junk is tolerated, not more. */
  private static final int MAX_LEADING_JUNK = 64 * 1024;

  // Bit rates in kbit/s by [MPEG-1 ? 0 : 1][layer I, II, III][index] (ISO 11172-3, 13818-3).
  private static final int[][][] BITRATES = {
    {
      {0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
      {0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
      {0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
    },
    {
      {0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
      {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
      {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
    }
  };

  private static final int[] MPEG1_RATES = {44100, 48000, 32000};

  private Mp3Duration() {}

  /** One frame header, decoded. */
  private record Frame(
      int version, int layer, int sampleRate, int length, int samples, boolean mono) {

    /** Whether {@code other} can belong to the same stream (bit rate and padding may change). */
    boolean sameStream(Frame other) {
      return version == other.version && layer == other.layer && sampleRate == other.sampleRate;
    }
  }

  static Measurement measure(Cursor in) {
    in.seek(0);
    Id3.skipLeadingTags(in);
    long start = in.position();
    // A note sniffed as MP3 for its ID3 tag may hold AAC in ADTS frames.
    if (AdtsDuration.startsAt(in, start)) {
      return AdtsDuration.walk(in);
    }
    @Nullable Frame first = null;
    long firstAt = -1;
    for (long at = in.next(0xff, start);
        at < start + MAX_LEADING_JUNK && at + 4 <= in.size();
        at = in.next(0xff, at + 1)) {
      @Nullable Frame frame = frameAt(in, at);
      if (frame == null) {
        continue;
      }
      if (frame.length() == 0) {
        // Free format: the frame length is not in the header, and guessing it is not measuring.
        return new Measurement.Unmeasurable("a free-format MPEG audio stream");
      }
      // A sync word can occur by chance; the next frame must follow where this one ends.
      long next = at + frame.length();
      @Nullable Frame following = next + 4 <= in.size() ? frameAt(in, next) : null;
      if (next + 4 > in.size() || (following != null && following.sameStream(frame))) {
        first = frame;
        firstAt = at;
        break;
      }
    }
    if (first == null) {
      return new Measurement.Unmeasurable("no MPEG audio frame near byte " + start);
    }
    long counted = vbrFrameCount(in, firstAt, first);
    if (counted > 0) {
      return new Measurement.Measured(
          Millis.of(counted * first.samples(), first.sampleRate(), "the MPEG sample rate"));
    }
    return walk(in, firstAt, first);
  }

  /** Counts every frame from {@code at} to the end, skipping junk the way decoders do. */
  private static Measurement walk(Cursor in, long at, Frame first) {
    long samples = 0;
    long position = at;
    while (position + 4 <= in.size()) {
      @Nullable Frame frame = frameAt(in, position);
      if (frame == null || !frame.sameStream(first) || frame.length() == 0) {
        if (Id3.isTrailingTag(in, position)) {
          break;
        }
        // Junk between frames: decoders look for the next sync byte, and so do we.
        position = in.next(0xff, position + 1);
        continue;
      }
      samples += frame.samples();
      position += frame.length();
    }
    return new Measurement.Measured(Millis.of(samples, first.sampleRate(), "the MPEG sample rate"));
  }

  /**
   * The frame count of a Xing/Info (LAME) or VBRI header in the first frame, or 0 when there is
   * none or it has no count.
   */
  private static long vbrFrameCount(Cursor in, long at, Frame frame) {
    // Xing sits after the side information, whose size depends on the version and channels.
    int sideInfo = frame.version() == 1 ? (frame.mono() ? 17 : 32) : (frame.mono() ? 9 : 17);
    in.seek(at + 4 + sideInfo);
    if (in.consume("Xing") || in.consume("Info")) {
      long flags = in.u32be();
      return (flags & 0x1) != 0 ? in.u32be() : 0;
    }
    // VBRI (Fraunhofer) sits 32 bytes after the header: version, delay, quality, bytes, frames.
    in.seek(at + 4 + 32);
    if (in.consume("VBRI")) {
      in.skip(10);
      return in.u32be();
    }
    return 0;
  }

  /** The frame whose header is at {@code at}, or null when those 4 bytes are not one. */
  private static @Nullable Frame frameAt(Cursor in, long at) {
    if (at + 4 > in.size()) {
      return null;
    }
    in.seek(at);
    long header = in.u32be();
    if ((header >>> 21) != 0x7ff) {
      return null;
    }
    int versionBits = (int) (header >>> 19) & 0x3;
    int layerBits = (int) (header >>> 17) & 0x3;
    int bitrateIndex = (int) (header >>> 12) & 0xf;
    int rateIndex = (int) (header >>> 10) & 0x3;
    // 01 is a reserved version, 00 a reserved layer, 1111 a forbidden bit rate, 11 a reserved rate.
    if (versionBits == 1 || layerBits == 0 || bitrateIndex == 0xf || rateIndex == 3) {
      return null;
    }
    int version = versionBits == 3 ? 1 : versionBits == 2 ? 2 : 25;
    int layer = 4 - layerBits;
    int sampleRate = MPEG1_RATES[rateIndex] / (version == 1 ? 1 : version == 2 ? 2 : 4);
    boolean padded = ((header >>> 9) & 0x1) != 0;
    boolean mono = ((header >>> 6) & 0x3) == 3;
    int samples = layer == 1 ? 384 : layer == 2 || version == 1 ? 1152 : 576;
    int kbps = BITRATES[version == 1 ? 0 : 1][layer - 1][bitrateIndex];
    int length;
    if (kbps == 0) {
      length = 0;
    } else if (layer == 1) {
      length = (12 * kbps * 1000 / sampleRate + (padded ? 1 : 0)) * 4;
    } else {
      // Bytes per frame: samples / 8 bits * bit rate / sample rate.
      length = samples / 8 * kbps * 1000 / sampleRate + (padded ? 1 : 0);
    }
    return new Frame(version, layer, sampleRate, length, samples, mono);
  }
}
