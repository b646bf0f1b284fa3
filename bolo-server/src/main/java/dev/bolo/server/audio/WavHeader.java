package dev.bolo.server.audio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/** Reads a note's length from a RIFF/WAVE header: data bytes divided by the byte rate. */
final class WavHeader {

  private WavHeader() {}

  /**
   * The length in milliseconds of a WAV file whose first bytes are {@code head} and whose total
   * size is {@code totalSize}, or empty when the header is not one we can trust.
   */
  static OptionalLong durationMs(byte[] head, long totalSize) {
    if (head.length < 12) {
      return OptionalLong.empty();
    }
    ByteBuffer buffer = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
    long byteRate = -1;
    int position = 12;
    while (position + 8 <= head.length) {
      String id = new String(head, position, 4, StandardCharsets.US_ASCII);
      long chunkSize = Integer.toUnsignedLong(buffer.getInt(position + 4));
      int body = position + 8;
      if (id.equals("fmt ") && body + 12 <= head.length) {
        byteRate = Integer.toUnsignedLong(buffer.getInt(body + 8));
      } else if (id.equals("data")) {
        if (byteRate <= 0) {
          return OptionalLong.empty();
        }
        // Streaming writers leave the size at 0 or 0xFFFFFFFF; the file's end is the data's end.
        long available = Math.max(0, totalSize - body);
        long dataBytes =
            chunkSize == 0 || chunkSize == 0xFFFFFFFFL ? available : Math.min(chunkSize, available);
        return OptionalLong.of(dataBytes * 1000 / byteRate);
      }
      // Chunks are padded to an even size (RIFF).
      long next = body + chunkSize + (chunkSize & 1);
      if (next > Integer.MAX_VALUE) {
        return OptionalLong.empty();
      }
      position = (int) next;
    }
    return OptionalLong.empty();
  }
}
