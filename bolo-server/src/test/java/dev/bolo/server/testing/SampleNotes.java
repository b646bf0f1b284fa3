package dev.bolo.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The committed sample notes ({@code samples/notes/NAME.wav} with {@code NAME.txt}): short notes
 * spoken by a speech synthesiser, each with the words it says.
 */
public record SampleNotes(String name, Path wav, String reference) {

  /** From bolo-server, where the tests run, the samples are one level up. */
  public static final Path DIRECTORY = Path.of("..", "samples", "notes");

  public static List<SampleNotes> all() {
    try (Stream<Path> files = Files.list(DIRECTORY)) {
      return files
          .filter(file -> file.getFileName().toString().endsWith(".wav"))
          .sorted()
          .map(SampleNotes::of)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static SampleNotes named(String name) {
    return of(DIRECTORY.resolve(name + ".wav"));
  }

  private static SampleNotes of(Path wav) {
    String file = wav.getFileName().toString();
    String name = file.substring(0, file.length() - ".wav".length());
    try {
      String reference =
          Files.readString(wav.resolveSibling(name + ".txt"), StandardCharsets.UTF_8).trim();
      return new SampleNotes(name, wav, reference);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public byte[] bytes() {
    try {
      return Files.readAllBytes(wav);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
