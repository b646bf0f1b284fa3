package dev.bolo.audio;

/**
 * An Ogg Opus or Ogg Vorbis note's length from the granule position of the stream's last page: Opus
 * counts 48 kHz samples and starts after its pre-skip (RFC 7845), Vorbis counts samples at the rate
 * in its identification header. Only the first page and the file's tail are read.
 */
final class OggDuration {

  /** The largest Ogg page: 27 header bytes, 255 lacing values, 255 × 255 payload bytes. */
  private static final int MAX_PAGE = 27 + 255 + 255 * 255;

  /** How far back from the end to look for the last page: a few pages of junk at most. */
  private static final int MAX_TAIL_WINDOWS = 16;

  private static final long OPUS_RATE = 48_000;

  private static final long UNKNOWN_GRANULE = -1;

  private OggDuration() {}

  /** The fields of a page header that matter here. */
  private record Page(long granule, long serial, long end) {}

  static Measurement measure(Cursor in) {
    Page first = page(in, 0);
    if (first == null) {
      throw new ParseStop.Unreadable("no Ogg page at the start");
    }
    // The first packet is the codec's identification header; read its first bytes.
    in.seek(0);
    in.skip(26);
    int segments = in.u8();
    in.skip(segments);
    long packet = in.position();
    long opusPreSkip = -1;
    long vorbisRate = -1;
    if (in.consume("OpusHead")) {
      // OpusHead: version (1), channels (1), pre-skip (2, little-endian), input rate, ...
      in.skip(2);
      opusPreSkip = in.u16le();
    } else {
      in.seek(packet);
      if (!in.consume("\u0001vorbis")) {
        return new Measurement.Unmeasurable("an Ogg stream that is neither Opus nor Vorbis");
      }
      // Vorbis identification: version (4), channels (1), sample rate (4, little-endian).
      in.skip(5);
      vorbisRate = in.u32le();
      if (vorbisRate == 0) {
        throw new ParseStop.Contradiction("the Vorbis header says a sample rate of 0 Hz");
      }
    }
    long granule = lastGranule(in, first.serial());
    if (granule < 0) {
      throw new ParseStop.Contradiction("the last Ogg page has a negative granule position");
    }
    if (opusPreSkip >= 0) {
      if (granule < opusPreSkip) {
        throw new ParseStop.Contradiction(
            "the last Opus granule position "
                + granule
                + " is below the pre-skip of "
                + opusPreSkip
                + " samples");
      }
      return new Measurement.Measured(
          Millis.of(granule - opusPreSkip, OPUS_RATE, "the Opus sample rate"));
    }
    return new Measurement.Measured(Millis.of(granule, vorbisRate, "the Vorbis sample rate"));
  }

  /**
   * The granule position of the last page of stream {@code serial} that ends within the file,
   * searching backwards from the end one window at a time.
   */
  private static long lastGranule(Cursor in, long serial) {
    byte[] window = new byte[MAX_PAGE + 4];
    long windowEnd = in.size();
    for (int i = 0; i < MAX_TAIL_WINDOWS && windowEnd > 0; i++) {
      long windowStart = Math.max(0, windowEnd - MAX_PAGE);
      int length = in.copy(windowStart, window);
      int limit = (int) Math.min(length, windowEnd - windowStart + 3);
      for (int at = limit - 4; at >= 0; at--) {
        if (window[at] != 'O'
            || window[at + 1] != 'g'
            || window[at + 2] != 'g'
            || window[at + 3] != 'S') {
          continue;
        }
        Page page = page(in, windowStart + at);
        if (page != null
            && page.serial() == serial
            && page.granule() != UNKNOWN_GRANULE
            && page.end() <= in.size()) {
          return page.granule();
        }
      }
      windowEnd = windowStart;
    }
    throw new ParseStop.Unreadable("no complete Ogg page with a granule position near the end");
  }

  /** The page whose header starts at {@code at}, or null when the bytes there are not one. */
  private static @org.jspecify.annotations.Nullable Page page(Cursor in, long at) {
    if (in.size() - at < 27) {
      return null;
    }
    in.seek(at);
    if (!in.consume("OggS") || in.u8() != 0) {
      return null;
    }
    in.skip(1);
    long granule = in.u64le();
    long serial = in.u32le();
    in.skip(8);
    int segments = in.u8();
    if (in.remaining() < segments) {
      return null;
    }
    long payload = 0;
    for (int i = 0; i < segments; i++) {
      payload += in.u8();
    }
    return new Page(granule, serial, in.position() + payload);
  }
}
