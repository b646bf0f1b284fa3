package dev.bolo.client;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Reads a note's duration from a RIFF/WAVE header: the data chunk's size over the byte rate. */
final class WavHeader {

  /** Enough to reach the data chunk of any WAV file written by a recorder. */
  static final int PREFIX_BYTES = 64 * 1024;

  private WavHeader() {}

  /**
   * The duration in milliseconds, or -1 when {@code head} is not the start of a readable WAV file.
   *
   * @param head the first bytes of the file (up to {@link #PREFIX_BYTES})
   * @param headLength how many bytes of {@code head} are valid
   * @param totalLength the whole file's length, which bounds a data chunk that claims more (a
   *     recorder that never went back to fix the size writes 0 or 0xFFFFFFFF there)
   */
  static long durationMs(byte[] head, int headLength, long totalLength) {
    if (headLength < 12 || !tag(head, 0, "RIFF") || !tag(head, 8, "WAVE")) {
      return -1;
    }
    ByteBuffer le = ByteBuffer.wrap(head, 0, headLength).order(ByteOrder.LITTLE_ENDIAN);
    long byteRate = -1;
    int offset = 12;
    while (offset + 8 <= headLength) {
      long size = le.getInt(offset + 4) & 0xFFFFFFFFL;
      if (tag(head, offset, "fmt ")) {
        // fmt body: format(2) channels(2) sample rate(4) byte rate(4) ...
        if (offset + 20 > headLength) {
          return -1;
        }
        byteRate = le.getInt(offset + 16) & 0xFFFFFFFFL;
      } else if (tag(head, offset, "data")) {
        if (byteRate <= 0) {
          return -1;
        }
        long available = totalLength - (offset + 8);
        long dataBytes = size == 0 || size > available ? available : size;
        return dataBytes * 1000 / byteRate;
      }
      // Chunks are padded to an even length (RIFF).
      long next = offset + 8 + size + (size & 1);
      if (next > headLength) {
        return -1;
      }
      offset = (int) next;
    }
    return -1;
  }

  private static boolean tag(byte[] bytes, int offset, String tag) {
    return new String(bytes, offset, 4, StandardCharsets.US_ASCII).equals(tag);
  }
}
