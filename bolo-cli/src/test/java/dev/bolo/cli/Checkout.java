package dev.bolo.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;

/**
 * The checkout the tests read (the launcher, deploy/, docs/, scripts/) and the scripts they write
 * to stand in for other programs. Stateless.
 */
final class Checkout {

  /** The top of the checkout: tests run in bolo-cli. */
  static final Path ROOT = Objects.requireNonNull(Path.of("").toAbsolutePath().getParent());

  private Checkout() {}

  /** Writes {@code script} to {@code file}, executable by everyone, as a stand-in program. */
  static void executable(Path file, String script) throws IOException {
    Files.writeString(file, script);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
