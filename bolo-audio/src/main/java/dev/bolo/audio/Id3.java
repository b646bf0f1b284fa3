package dev.bolo.audio;

/** ID3 and APE tags around MPEG and ADTS frames: skipped before the frames, recognised after. */
final class Id3 {

  /** A few tags in a row happen; more than this is not a real file. */
  private static final int MAX_LEADING_TAGS = 8;

  /** ID3v1 is the last 128 bytes, starting with "TAG". */
  static final int V1_BYTES = 128;

  private Id3() {}

  /** Moves the cursor past any ID3v2 tags at its position. */
  static void skipLeadingTags(Cursor in) {
    for (int i = 0; i < MAX_LEADING_TAGS && in.remaining() >= 10; i++) {
      long start = in.position();
      if (!in.consume("ID3")) {
        return;
      }
      in.skip(2);
      int flags = in.u8();
      long size = 0;
      for (int b = 0; b < 4; b++) {
        int part = in.u8();
        // Each of the four bytes holds 7 bits (a "syncsafe" integer); a high bit is not ID3v2.
        if ((part & 0x80) != 0) {
          throw new ParseStop.Unreadable("an ID3v2 tag with a broken size at byte " + start);
        }
        size = size << 7 | part;
      }
      // A footer repeats the 10-byte header at the end of the tag.
      long footer = (flags & 0x10) != 0 ? 10 : 0;
      in.seek(start + 10 + size + footer);
    }
  }

  /**
   * Whether the bytes at {@code at} begin a trailing tag (ID3v1, APE, Lyrics3) rather than audio.
   */
  static boolean isTrailingTag(Cursor in, long at) {
    long mark = in.position();
    try {
      in.seek(at);
      if (in.size() - at <= V1_BYTES && in.consume("TAG")) {
        return true;
      }
      in.seek(at);
      return in.consume("APETAGEX") || in.consume("LYRICSBEGIN") || in.consume("ID3");
    } finally {
      in.seek(mark);
    }
  }
}
