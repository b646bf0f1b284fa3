package dev.bolo.audio;

/**
 * An AAC note in ADTS frames: every frame's header says how many 1024-sample blocks it holds and
 * how long it is, so the length is the walk of all frame headers (7 bytes read per frame).
 */
final class AdtsDuration {

  private static final long[] SAMPLE_RATES = {
    96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350
  };

  private static final int SAMPLES_PER_BLOCK = 1024;

  private AdtsDuration() {}

  static Measurement measure(Cursor in) {
    in.seek(0);
    Id3.skipLeadingTags(in);
    return walk(in);
  }

  /** Walks the frames from the cursor's position to the end of the file. */
  static Measurement walk(Cursor in) {
    long first = in.position();
    int rateIndex = -1;
    long samples = 0;
    long frames = 0;
    while (in.remaining() >= 7) {
      long at = in.position();
      int header = header(in, at);
      if (header < 0) {
        if (Id3.isTrailingTag(in, at)) {
          break;
        }
        // Junk between frames: decoders look for the next sync word, and so do we.
        in.seek(in.next(0xff, at + 1));
        continue;
      }
      int index = header >>> 16;
      if (rateIndex < 0) {
        rateIndex = index;
      } else if (index != rateIndex) {
        // A sync word inside a frame of another stream or junk; decoders skip it too.
        in.seek(in.next(0xff, at + 1));
        continue;
      }
      int blocks = (header >>> 13) & 0x3;
      int length = header & 0x1fff;
      samples += (long) (blocks + 1) * SAMPLES_PER_BLOCK;
      frames++;
      in.seek(at + length);
    }
    if (frames == 0) {
      return new Measurement.Unmeasurable("no ADTS frame after byte " + first);
    }
    return new Measurement.Measured(Millis.of(samples, SAMPLE_RATES[rateIndex], "the ADTS rate"));
  }

  /**
   * The sample-rate index, raw-block count and frame length of the ADTS header at {@code at},
   * packed as {@code index << 16 | blocks << 13 | length}, or -1 when there is none.
   */
  private static int header(Cursor in, long at) {
    in.seek(at);
    int b0 = in.u8();
    int b1 = in.u8();
    // Twelve sync bits and layer 00 (RFC 3016 / ISO 14496-3 1.A.2.2).
    if (b0 != 0xff || (b1 & 0xf6) != 0xf0) {
      return -1;
    }
    boolean protectionAbsent = (b1 & 0x1) != 0;
    int b2 = in.u8();
    int b3 = in.u8();
    int b4 = in.u8();
    int b5 = in.u8();
    int b6 = in.u8();
    int index = (b2 >>> 2) & 0xf;
    if (index >= SAMPLE_RATES.length) {
      return -1;
    }
    int length = (b3 & 0x3) << 11 | b4 << 3 | b5 >>> 5;
    int headerLength = protectionAbsent ? 7 : 9;
    if (length < headerLength) {
      return -1;
    }
    int blocks = b6 & 0x3;
    return index << 16 | blocks << 13 | length;
  }

  /** Whether the bytes at the cursor's position look like an ADTS header. */
  static boolean startsAt(Cursor in, long at) {
    long mark = in.position();
    try {
      return in.size() - at >= 7 && header(in, at) >= 0;
    } finally {
      in.seek(mark);
    }
  }
}
