package dev.bolo.audio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A position in a {@link SeekableSource} with a small read-ahead buffer, for parsers that read
 * headers one field at a time. Reading past the end throws {@link ParseStop.Unreadable}; seeking
 * past it does not, so a parser can jump over a box and then ask {@link #remaining()}.
 *
 * <p>Not thread safe: one parser owns one cursor.
 */
final class Cursor {

  /**
   * Most read-ahead; the largest single read a parser asks for is far smaller. A smaller note gets
   * a buffer of its own size, and a note in memory is read in place: measuring it allocates and
   * copies nothing.
   */
  static final int BUFFER_BYTES = 64 * 1024;

  private final SeekableSource source;
  private final long size;
  private final byte[] buffer;

  /** The buffer is the note itself: never written, so never refilled. */
  private final boolean inPlace;

  private long bufferStart;
  private int bufferLength;
  private long position;

  Cursor(SeekableSource source) {
    this.source = source;
    this.size = source.size();
    byte @Nullable [] note = source.array();
    this.inPlace = note != null;
    if (note != null) {
      // The whole source is in the buffer from the start, so it is never refilled (or written).
      this.buffer = note;
      this.bufferLength = (int) size;
    } else {
      this.buffer = new byte[(int) Math.max(0, Math.min(size, BUFFER_BYTES))];
    }
  }

  long size() {
    return size;
  }

  long position() {
    return position;
  }

  /** Bytes left from here to the end, 0 when the cursor is at or past it. */
  long remaining() {
    return Math.max(0, size - position);
  }

  void seek(long to) {
    if (to < 0) {
      throw new ParseStop.Unreadable("a header points before the start of the file: " + to);
    }
    position = to;
  }

  /** Moves forward by {@code count} bytes, saturating instead of overflowing. */
  void skip(long count) {
    if (count < 0) {
      throw new ParseStop.Unreadable("a header asks to skip back " + count + " bytes");
    }
    position = position > Long.MAX_VALUE - count ? Long.MAX_VALUE : position + count;
  }

  int u8() {
    ensure(1);
    return buffer[(int) (position++ - bufferStart)] & 0xff;
  }

  int u16be() {
    return u8() << 8 | u8();
  }

  int u16le() {
    return u8() | u8() << 8;
  }

  int u24be() {
    return u8() << 16 | u16be();
  }

  long u32be() {
    return (long) u16be() << 16 | u16be();
  }

  long u32le() {
    return u16le() | (long) u16le() << 16;
  }

  /** An unsigned 64-bit value read as a signed long: callers treat negative as absurd. */
  long u64be() {
    return u32be() << 32 | u32be();
  }

  long u64le() {
    return u32le() | u32le() << 32;
  }

  /** Four ASCII characters, as box and chunk names are. */
  String fourcc() {
    ensure(4);
    String value =
        new String(buffer, (int) (position - bufferStart), 4, StandardCharsets.ISO_8859_1);
    position += 4;
    return value;
  }

  /** Whether the next bytes are {@code expected}; consumes them only when they are. */
  boolean consume(String expected) {
    int length = expected.length();
    if (remaining() < length) {
      return false;
    }
    ensure(length);
    int at = (int) (position - bufferStart);
    for (int i = 0; i < length; i++) {
      if ((buffer[at + i] & 0xff) != expected.charAt(i)) {
        return false;
      }
    }
    position += length;
    return true;
  }

  /**
   * Copies up to {@code into.length} bytes starting at {@code at} without moving the cursor.
   *
   * @return how many bytes were copied, fewer at the end of the source
   */
  int copy(long at, byte[] into) {
    int done = 0;
    while (done < into.length) {
      int n = read(at + done, into, done, into.length - done);
      if (n <= 0) {
        break;
      }
      done += n;
    }
    return done;
  }

  /**
   * The position of the first byte equal to {@code value} at or after {@code from}, or {@link
   * #size()} when there is none: how frame walks find the next sync byte past junk without reading
   * it one call at a time. Does not move the cursor.
   */
  long next(int value, long from) {
    long at = Math.max(0, from);
    while (at < size) {
      if (at < bufferStart || at >= bufferStart + bufferLength) {
        refilling();
        bufferStart = at;
        bufferLength = copy(at, buffer);
        if (bufferLength == 0) {
          return size;
        }
      }
      for (int i = (int) (at - bufferStart); i < bufferLength; i++) {
        if ((buffer[i] & 0xff) == value) {
          return bufferStart + i;
        }
      }
      at = bufferStart + bufferLength;
    }
    return size;
  }

  private void ensure(int count) {
    if (position >= bufferStart && position + count <= bufferStart + bufferLength) {
      return;
    }
    if (position > size - count) {
      throw new ParseStop.Unreadable("the file ends at byte " + size + " inside a header");
    }
    refilling();
    bufferStart = position;
    bufferLength = copy(position, buffer);
    if (bufferLength < count) {
      throw new ParseStop.Unreadable("the file ends at byte " + size + " inside a header");
    }
  }

  /** A refill would copy the note over itself: a parser's position is then past any sense. */
  private void refilling() {
    if (inPlace) {
      throw new ParseStop.Unreadable("a header points outside the note at " + position);
    }
  }

  private int read(long at, byte[] into, int offset, int length) {
    try {
      return source.read(at, into, offset, length);
    } catch (IOException e) {
      // Not the note's fault: AudioDurations unwraps this and rethrows the IOException.
      throw new UncheckedIOException(e);
    }
  }
}
