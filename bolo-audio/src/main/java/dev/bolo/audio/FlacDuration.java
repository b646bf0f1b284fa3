package dev.bolo.audio;

/**
 * A FLAC note's length from STREAMINFO: total samples over the sample rate (RFC 9639 8.2). A stream
 * written to a pipe has no total (0, "unknown"); then the last frame's header, found from the end
 * of the file and checked by its CRC-8, says where the stream ends.
 */
final class FlacDuration {

  private static final int STREAMINFO = 0;

  private static final int STREAMINFO_BYTES = 34;

  /** The last frame is within the file's last bytes: a window at a time, this many windows. */
  private static final int MAX_TAIL_WINDOWS = 16;

  private static final int WINDOW_BYTES = 64 * 1024;

  /** The longest frame header: sync, 2 bytes of codes, 7 of number, 2 + 2 of extras, CRC-8. */
  private static final int MAX_HEADER_BYTES = 16;

  private FlacDuration() {}

  static Measurement measure(Cursor in) {
    in.seek(0);
    if (!in.consume("fLaC")) {
      throw new ParseStop.Unreadable("no fLaC marker");
    }
    int type = in.u8() & 0x7f;
    int length = in.u24be();
    // RFC 9639: STREAMINFO is the first metadata block and is 34 bytes long.
    if (type != STREAMINFO || length != STREAMINFO_BYTES) {
      throw new ParseStop.Contradiction(
          "the first FLAC metadata block is of type "
              + type
              + " and "
              + length
              + " bytes, not a 34-byte STREAMINFO");
    }
    in.skip(2);
    int maxBlock = in.u16be();
    in.skip(6);
    // 20 bits sample rate, 3 bits channels - 1, 5 bits bits per sample - 1, 36 bits samples.
    long packed = in.u64be();
    long sampleRate = packed >>> 44;
    long totalSamples = packed & 0xF_FFFF_FFFFL;
    if (sampleRate == 0) {
      throw new ParseStop.Contradiction("the FLAC STREAMINFO says a sample rate of 0 Hz");
    }
    if (totalSamples == 0) {
      // 0 means "unknown": what an encoder writing to a pipe leaves, unable to seek back.
      totalSamples = lastFrameEnd(in, maxBlock);
    }
    return new Measurement.Measured(Millis.of(totalSamples, sampleRate, "the FLAC sample rate"));
  }

  /** The sample just past the last frame whose header is intact, searching from the end. */
  private static long lastFrameEnd(Cursor in, int fixedBlock) {
    byte[] window = new byte[WINDOW_BYTES + MAX_HEADER_BYTES];
    long windowEnd = in.size();
    for (int w = 0; w < MAX_TAIL_WINDOWS && windowEnd > 0; w++) {
      long windowStart = Math.max(0, windowEnd - WINDOW_BYTES);
      int length = in.copy(windowStart, window);
      int last = (int) Math.min(length - 2L, windowEnd - windowStart - 1);
      for (int at = last; at >= 0; at--) {
        // Sync code 0b11111111111110, a reserved 0, then the blocking strategy bit.
        if ((window[at] & 0xff) != 0xff || (window[at + 1] & 0xfe) != 0xf8) {
          continue;
        }
        long end = frameEnd(window, at, length, fixedBlock);
        if (end >= 0) {
          return end;
        }
      }
      windowEnd = windowStart;
    }
    throw new ParseStop.Unreadable("a FLAC stream with no sample count and no frame near its end");
  }

  /**
   * The sample number just past the frame whose header starts at {@code at} in {@code bytes}, or -1
   * when the bytes there are not a frame header with a matching CRC-8 (RFC 9639 9.1).
   */
  private static long frameEnd(byte[] bytes, int at, int length, int fixedBlock) {
    if (at + 4 >= length) {
      return -1;
    }
    boolean variable = (bytes[at + 1] & 0x1) != 0;
    int blockCode = (bytes[at + 2] & 0xff) >>> 4;
    int rateCode = bytes[at + 2] & 0xf;
    int channelCode = (bytes[at + 3] & 0xff) >>> 4;
    // 0000 is a reserved block size, 1111 an invalid rate, 1011+ reserved channel codes.
    if (blockCode == 0 || rateCode == 0xf || channelCode > 10 || (bytes[at + 3] & 0x1) != 0) {
      return -1;
    }
    int position = at + 4;
    int first = bytes[position] & 0xff;
    // The coded number, UTF-8 style: the leading ones of its first byte say how many follow.
    int extra = Integer.numberOfLeadingZeros(~first << 24);
    if (extra == 1 || extra > 7 || position + Math.max(1, extra) >= length) {
      return -1;
    }
    long number = extra == 0 ? first : first & (0x7f >>> extra);
    for (int i = 1; i < extra; i++) {
      int next = bytes[position + i] & 0xff;
      if ((next & 0xc0) != 0x80) {
        return -1;
      }
      number = number << 6 | (next & 0x3f);
    }
    position += Math.max(1, extra);
    int blockSize;
    if (blockCode == 1) {
      blockSize = 192;
    } else if (blockCode <= 5) {
      blockSize = 576 << (blockCode - 2);
    } else if (blockCode == 6) {
      blockSize = (bytes[position++] & 0xff) + 1;
    } else if (blockCode == 7) {
      blockSize = ((bytes[position] & 0xff) << 8 | (bytes[position + 1] & 0xff)) + 1;
      position += 2;
    } else {
      blockSize = 256 << (blockCode - 8);
    }
    position += rateCode == 0xc ? 1 : rateCode == 0xd || rateCode == 0xe ? 2 : 0;
    if (position >= length || crc8(bytes, at, position) != (bytes[position] & 0xff)) {
      return -1;
    }
    // Fixed-size blocks count frames; variable-size blocks count samples.
    long start = variable ? number : number * fixedBlock;
    return start + blockSize;
  }

  /** CRC-8 with polynomial x^8 + x^2 + x + 1, initial 0, over {@code bytes[from, to)}. */
  private static int crc8(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc ^= bytes[i] & 0xff;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x80) != 0 ? (crc << 1 ^ 0x07) & 0xff : crc << 1 & 0xff;
      }
    }
    return crc;
  }
}
