package dev.bolo.audio;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/** The notes made by make-test-audio.sh and ffprobe's length of each (durations.tsv). */
final class TestFiles {

  private TestFiles() {}

  /** One line of durations.tsv. */
  record Reference(String file, double seconds) {
    long millis() {
      return Math.round(seconds * 1000);
    }

    @Override
    public String toString() {
      return file;
    }
  }

  static List<Reference> references() {
    String tsv = new String(bytes("durations.tsv"), StandardCharsets.UTF_8);
    return tsv.lines()
        .skip(1)
        .filter(line -> !line.isBlank())
        .map(line -> line.split("\t"))
        .map(fields -> new Reference(fields[0], Double.parseDouble(fields[1])))
        .toList();
  }

  static byte[] audio(String file) {
    return bytes("audio/" + file);
  }

  static Path path(String file) {
    URL url = Objects.requireNonNull(TestFiles.class.getResource("/audio/" + file), file);
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static AudioContainer containerOf(byte[] bytes) {
    return AudioContainer.sniff(bytes, bytes.length).orElseThrow();
  }

  private static byte[] bytes(String resource) {
    try (InputStream in =
        Objects.requireNonNull(
            TestFiles.class.getResourceAsStream("/" + resource), "missing " + resource)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
