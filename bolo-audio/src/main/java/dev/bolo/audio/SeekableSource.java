package dev.bolo.audio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Bytes that can be read at any position without reading what comes before: a note in memory or a
 * file on disk. Measuring a note reads only the few headers it needs through this, never the whole
 * note.
 *
 * <p>Implementations made here are safe to read from several threads at once.
 */
public interface SeekableSource {

  /** The number of bytes. */
  long size();

  /**
   * Reads up to {@code length} bytes starting at {@code position} into {@code into} at {@code
   * offset}.
   *
   * @return how many bytes were read: {@code length} unless the source ends first, then fewer (0 at
   *     or past the end)
   */
  int read(long position, byte[] into, int offset, int length) throws IOException;

  /**
   * The array this source reads from when it is the first {@link #size()} bytes of one in memory,
   * else null: a parser may then read it in place instead of copying it. Nobody writes to it.
   */
  default byte @Nullable [] array() {
    return null;
  }

  /** The whole of {@code bytes}; the array is not copied and must not change while in use. */
  static SeekableSource of(byte[] bytes) {
    return of(bytes, bytes.length);
  }

  /** The first {@code length} bytes of {@code bytes}; the array is not copied. */
  static SeekableSource of(byte[] bytes, int length) {
    Objects.requireNonNull(bytes, "bytes");
    if (length < 0 || length > bytes.length) {
      throw new IllegalArgumentException(
          "length must be within the array's " + bytes.length + " bytes: " + length);
    }
    return new SeekableSource() {
      @Override
      public long size() {
        return length;
      }

      @Override
      public byte[] array() {
        return bytes;
      }

      @Override
      public int read(long position, byte[] into, int offset, int count) {
        if (position < 0 || position >= length) {
          return 0;
        }
        int n = (int) Math.min(count, length - position);
        System.arraycopy(bytes, (int) position, into, offset, n);
        return n;
      }
    };
  }

  /**
   * A file through an open channel, with the size it has now; the caller keeps closing the channel.
   * Reads are positional, so they neither use nor move the channel's own position.
   */
  static SeekableSource of(FileChannel channel) throws IOException {
    Objects.requireNonNull(channel, "channel");
    long size = channel.size();
    return new SeekableSource() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public int read(long position, byte[] into, int offset, int count) throws IOException {
        if (position < 0 || position >= size) {
          return 0;
        }
        ByteBuffer buffer = ByteBuffer.wrap(into, offset, (int) Math.min(count, size - position));
        int total = 0;
        while (buffer.hasRemaining()) {
          int n = channel.read(buffer, position + total);
          if (n < 0) {
            break;
          }
          total += n;
        }
        return total;
      }
    };
  }
}
