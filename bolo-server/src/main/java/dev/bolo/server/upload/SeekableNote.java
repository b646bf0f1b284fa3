package dev.bolo.server.upload;

import dev.bolo.audio.SeekableSource;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An opened note that can be read at any position, as a decoder reads it (an MP4 may keep its index
 * at its end). Once opened it stays readable until closed, even after its upload has ended and its
 * spool file is deleted. Reads are safe from several threads; the opener closes it.
 */
public interface SeekableNote extends SeekableSource, Closeable {

  /** The first {@code length} bytes of {@code bytes}, not copied. */
  static SeekableNote of(byte[] bytes, int length) {
    return over(SeekableSource.of(bytes, length), () -> {});
  }

  /** A file, opened now. */
  static SeekableNote open(Path file) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      return over(SeekableSource.of(channel), channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** {@code source}, releasing what {@code closer} holds when closed. */
  private static SeekableNote over(SeekableSource source, Closeable closer) {
    return new SeekableNote() {
      @Override
      public long size() {
        return source.size();
      }

      @Override
      public int read(long position, byte[] into, int offset, int count) throws IOException {
        return source.read(position, into, offset, count);
      }

      @Override
      public void close() throws IOException {
        closer.close();
      }
    };
  }
}
