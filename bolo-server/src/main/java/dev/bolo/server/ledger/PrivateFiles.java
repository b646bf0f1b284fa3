package dev.bolo.server.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the data directory (0700) and the ledger's files (0600) readable by the gateway's user
 * only: they hold device names, token hashes and usage (and the TLS keys the gateway makes).
 * Checked at every start, since an operator's copy or restore may have loosened them; a looser mode
 * is logged and fixed. On file systems without POSIX permissions nothing is checked.
 */
public final class PrivateFiles {

  private static final Logger log = LoggerFactory.getLogger(PrivateFiles.class);

  static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
  static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /** Creates {@code dir} as 0700, or makes an existing one 0700. */
  public static void directory(Path dir) {
    try {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir.toAbsolutePath().getParent());
        try {
          Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
        } catch (UnsupportedOperationException e) {
          Files.createDirectory(dir);
        } catch (FileAlreadyExistsException e) {
          // Another process created it meanwhile; its mode is checked below.
        }
      }
      restrict(dir, DIRECTORY);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create or protect the data directory " + dir, e);
    }
  }

  /** Creates {@code file} empty as 0600 when absent, so that nothing else ever sees it looser. */
  static void createFile(Path file) {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
    } catch (FileAlreadyExistsException e) {
      // Checked by file() once open.
    } catch (UnsupportedOperationException e) {
      // No POSIX permissions here: SQLite creates the file itself.
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + file, e);
    }
  }

  /**
   * Writes {@code bytes} as the whole of {@code file}, readable by the gateway's user only from its
   * first byte: a 0600 file beside it, then moved over it at once, so that no reader ever sees half
   * of it (a key, say).
   */
  public static void write(Path file, byte[] bytes) {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.deleteIfExists(temp);
      try {
        Files.createFile(temp, PosixFilePermissions.asFileAttribute(FILE));
      } catch (UnsupportedOperationException e) {
        // No POSIX permissions here: the folder's own protection is all there is.
      }
      try (java.nio.channels.FileChannel channel =
          java.nio.channels.FileChannel.open(
              temp,
              java.nio.file.StandardOpenOption.WRITE,
              java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        // On the disk before it replaces the file: a power cut leaves the old or the new whole.
        channel.force(true);
      }
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** Makes {@code file} 0600 when it exists. */
  public static void file(Path file) {
    if (!Files.exists(file)) {
      return;
    }
    try {
      restrict(file, FILE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot protect " + file, e);
    }
  }

  private static void restrict(Path path, Set<PosixFilePermission> wanted) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
    if (view == null) {
      return;
    }
    Set<PosixFilePermission> actual = view.readAttributes().permissions();
    if (!actual.equals(wanted)) {
      log.warn(
          "{} was {}, readable beyond the gateway's user; setting it to {}",
          path,
          PosixFilePermissions.toString(actual),
          PosixFilePermissions.toString(wanted));
      view.setPermissions(wanted);
    }
  }
}
