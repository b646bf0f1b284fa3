package dev.bolo.decode;

import dev.bolo.audio.SeekableSource;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.ffmpeg.avformat.Read_packet_Pointer_BytePointer_int;
import org.bytedeco.ffmpeg.avformat.Seek_Pointer_long_int;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.jspecify.annotations.Nullable;

/**
 * A note's bytes as FFmpeg reads them: its demuxers read and seek through one read callback and one
 * seek callback shared by every open note, which find the note by the number FFmpeg hands back as
 * its opaque pointer.
 *
 * <p>One pair for all notes because JavaCPP makes each callback object a native thunk from a small
 * fixed pool: one pair per note would fail once a few notes decode at once, and leak thunks. The
 * callbacks never throw into native code: a failed read is kept and answered as {@code EIO}.
 *
 * <p>Thread safe: notes are registered in a concurrent map; each note is read by one thread at a
 * time (its decoder's).
 */
final class NoteInput implements AutoCloseable {

  /** FFmpeg's {@code AVSEEK_SIZE}: "return the stream's size", not a seek. */
  private static final int AVSEEK_SIZE = 0x10000;

  /** FFmpeg's {@code AVSEEK_FORCE} flag, which changes nothing for a source that can seek. */
  private static final int AVSEEK_FORCE = 0x20000;

  /** POSIX EIO: FFmpeg's {@code AVERROR(EIO)} is its negation. */
  private static final int EIO = 5;

  private static final Map<Long, NoteInput> OPEN = new ConcurrentHashMap<>();
  private static final AtomicLong IDS = new AtomicLong();

  static final Read_packet_Pointer_BytePointer_int READ =
      new Read_packet_Pointer_BytePointer_int() {
        @Override
        public int call(Pointer opaque, BytePointer into, int size) {
          NoteInput input = OPEN.get(opaque.address());
          return input == null ? -EIO : input.read(into, size);
        }
      };

  static final Seek_Pointer_long_int SEEK =
      new Seek_Pointer_long_int() {
        @Override
        public long call(Pointer opaque, long offset, int whence) {
          NoteInput input = OPEN.get(opaque.address());
          return input == null ? -EIO : input.seek(offset, whence);
        }
      };

  private final SeekableSource source;
  private final long id;
  private final Pointer opaque;
  private byte[] chunk = new byte[0];
  private long position;
  private @Nullable IOException failure;

  NoteInput(SeekableSource source) {
    this.source = source;
    this.id = IDS.incrementAndGet();
    this.opaque = new Opaque(id);
    OPEN.put(id, this);
  }

  /** The pointer FFmpeg hands back to the callbacks: the note's number, never dereferenced. */
  Pointer opaque() {
    return opaque;
  }

  /** The read failure that ended decoding, if one did: the source's fault, not the note's. */
  @Nullable IOException failure() {
    return failure;
  }

  private int read(BytePointer into, int size) {
    try {
      if (chunk.length < size) {
        chunk = new byte[size];
      }
      int n = source.read(position, chunk, 0, size);
      if (n <= 0) {
        return avutil.AVERROR_EOF;
      }
      into.position(0).put(chunk, 0, n);
      position += n;
      return n;
    } catch (IOException e) {
      failure = e;
      return -EIO;
    }
  }

  private long seek(long offset, int whence) {
    long size = source.size();
    if ((whence & AVSEEK_SIZE) != 0) {
      return size;
    }
    long target =
        switch (whence & ~AVSEEK_FORCE) {
          case 0 -> offset; // SEEK_SET
          case 1 -> position + offset; // SEEK_CUR
          case 2 -> size + offset; // SEEK_END
          default -> -1;
        };
    if (target < 0) {
      return -EIO;
    }
    position = target;
    return target;
  }

  @Override
  public void close() {
    OPEN.remove(id);
  }

  /** A pointer whose address is a number. */
  private static final class Opaque extends Pointer {
    Opaque(long id) {
      this.address = id;
    }
  }
}
