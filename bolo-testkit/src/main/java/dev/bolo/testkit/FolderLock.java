package dev.bolo.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A folder under {@code target/} held by one test JVM at a time: the module's tests run in two JVMs
 * at once, and an {@code npm ci} in one must not empty a {@code node_modules} that the other is
 * installing or reading. An operating-system lock on a file in the folder, let go on {@link
 * #close()} or when the JVM ends.
 */
final class FolderLock implements AutoCloseable {

  /** One holder per JVM as well: the operating system's lock is the whole JVM's. */
  private static final Object IN_THIS_JVM = new Object();

  private final FileChannel channel;
  private final FileLock lock;

  private FolderLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Waits until no other JVM holds {@code folder}, then holds it (made if missing). */
  static FolderLock hold(Path folder) {
    synchronized (IN_THIS_JVM) {
      try {
        Files.createDirectories(folder);
        FileChannel channel =
            FileChannel.open(
                folder.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
          return new FolderLock(channel, channel.lock());
        } catch (IOException | RuntimeException e) {
          channel.close();
          throw e;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot lock " + folder, e);
      }
    }
  }

  /**
   * Copies {@code from} over {@code to} unless {@code to} already has its bytes: a script that the
   * other JVM is starting is never replaced under it.
   */
  static void copyIfChanged(Path from, Path to) throws IOException {
    if (!Files.exists(to) || Files.mismatch(from, to) != -1) {
      Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
