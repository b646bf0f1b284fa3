package dev.bolo.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Real human speech with what was said: the five LibriVox recordings (a volunteer reading Jane
 * Austen, 16 kHz mono WAV) that Debian's {@code pocketsphinx-testdata} installs, listed with their
 * words in a {@code transcription} file of lines {@code <s> words </s> (NAME)}.
 */
public final class LibriVox {

  /** Where Debian installs them. */
  public static final Path DIRECTORY = Path.of("/usr/share/pocketsphinx/test/data/librivox");

  private LibriVox() {}

  /**
   * One recording.
   *
   * @param name its name in the transcription file, the WAV file's name without {@code .wav}
   * @param wav the WAV file
   * @param reference what was said, as the transcription file writes it
   */
  public record Recording(String name, Path wav, String reference) {}

  /** The recordings in {@link #DIRECTORY}, in the transcription file's order. */
  public static List<Recording> recordings() throws IOException {
    return recordings(DIRECTORY);
  }

  /** The recordings listed by {@code directory}'s transcription file, in its order. */
  public static List<Recording> recordings(Path directory) throws IOException {
    List<Recording> recordings = new ArrayList<>();
    for (String line :
        Files.readAllLines(directory.resolve("transcription"), StandardCharsets.UTF_8)) {
      int open = line.lastIndexOf('(');
      int close = line.lastIndexOf(')');
      if (open < 0 || close < open) {
        continue;
      }
      String name = line.substring(open + 1, close).trim();
      String reference = line.substring(0, open).replace("<s>", "").replace("</s>", "").trim();
      recordings.add(new Recording(name, directory.resolve(name + ".wav"), reference));
    }
    return recordings;
  }
}
