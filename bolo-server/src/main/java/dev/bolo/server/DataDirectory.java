package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Says why {@code BOLO_DATA_DIR} cannot be used, as the configuration error it is: only the
 * operator can fix a path under a file, a directory of another user or a read-only file system, so
 * {@code bolo serve} exits 2, which a supervisor does not restart on (deploy/bolo.service).
 * Stateless.
 */
final class DataDirectory {

  private DataDirectory() {}

  /** The configuration error of a data directory {@code dir} that failed with {@code failure}. */
  static ServerConfig.ConfigException unusable(Path dir, UncheckedIOException failure) {
    // An UncheckedIOException always carries its IOException.
    IOException cause = Objects.requireNonNull(failure.getCause(), "cause");
    return new ServerConfig.ConfigException(
        "BOLO_DATA_DIR="
            + dir
            + (Files.isDirectory(dir) ? " cannot be written: " : " cannot be made: ")
            + reason(cause)
            + "; point BOLO_DATA_DIR at a directory this user may write");
  }

  /** What the file system said, in words: the JDK's exceptions name the file and little else. */
  private static String reason(IOException cause) {
    if (cause instanceof FileAlreadyExistsException e) {
      // Met while making the directories on the way: one of them is a file.
      return e.getFile() + " is a file, not a directory";
    }
    if (cause instanceof NotDirectoryException e) {
      return e.getFile() + " is not a directory";
    }
    if (cause instanceof AccessDeniedException e) {
      return e.getFile() + ": permission denied";
    }
    if (cause instanceof FileSystemException e && e.getReason() != null) {
      return e.getFile() + ": " + e.getReason();
    }
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}
