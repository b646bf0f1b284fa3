package dev.bolo.server.engine.moonshine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The folder that holds the recogniser's weights ({@code models/} at the top of the repository),
 * and the only way to read a file from it: {@link #read} returns the bytes whose SHA-256 it
 * checked, so what is loaded is exactly what was verified. Hashing the 30 MB takes about 20 ms.
 *
 * <p>Where it is: the system property {@value #PROPERTY} when set (the container image sets it, as
 * tests may); otherwise {@code models} under the system property {@code bolo.home}, which the
 * {@code ./bolo} launcher sets to the checkout; otherwise {@code models} in the working directory.
 *
 * @param path the folder
 */
public record ModelFolder(Path path) {

  /** The system property that names the folder. */
  public static final String PROPERTY = "bolo.models";

  /** The folder named by the system properties, as described above; it may not exist. */
  public static ModelFolder fromSystemProperties() {
    return of(System.getProperty(PROPERTY), System.getProperty("bolo.home"));
  }

  static ModelFolder of(@Nullable String models, @Nullable String home) {
    if (models != null && !models.isBlank()) {
      return new ModelFolder(Path.of(models));
    }
    return new ModelFolder(Path.of(home == null || home.isBlank() ? "." : home, "models"));
  }

  /**
   * The file's bytes, checked against its pinned SHA-256.
   *
   * @throws ModelFilesException when the file is missing, unreadable or has other bytes; its
   *     message is one line naming the file
   */
  byte[] read(ModelFile file) {
    Path where = path.resolve(file.path());
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(where);
    } catch (NoSuchFileException e) {
      throw new ModelFilesException(
          "model file " + where + " is missing; restore models/ from the repository", e);
    } catch (IOException e) {
      throw new ModelFilesException("cannot read model file " + where + ": " + e, e);
    }
    String actual = sha256(bytes);
    if (!actual.equals(file.sha256())) {
      throw new ModelFilesException(
          "model file "
              + where
              + " is altered: its SHA-256 is "
              + actual
              + ", expected "
              + file.sha256()
              + "; restore models/ from the repository");
    }
    return bytes;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
