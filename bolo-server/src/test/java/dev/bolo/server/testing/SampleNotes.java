package dev.bolo.server.testing;

import dev.bolo.server.engine.offline.WordErrorRate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.Condition;

/**
 * The committed sample notes ({@code samples/notes/NAME.wav} with {@code NAME.txt}): short notes
 * spoken by a speech synthesiser, each with the words it says.
 */
public record SampleNotes(String name, Path wav, String reference) {

  /** From bolo-server, where the tests run, the samples are one level up. */
  public static final Path DIRECTORY = Path.of("..", "samples", "notes");

  /** The share of a note's words a browser recording may get wrong and still count as heard. */
  private static final double MAX_WRONG_SHARE = 0.4;

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

  /**
   * A transcript in which this note was heard: some run of its words is the reference with at most
   * {@code MAX_WRONG_SHARE} of the words wrong. A recording made through a browser's microphone is
   * not the committed file sample for sample (the capture can drop or repeat a block on a loaded
   * machine), and the offline engine may then hear a word or two differently; silence, another note
   * or noise fails. The run may sit anywhere, so a recording that holds the note twice passes.
   */
  public Condition<String> heard() {
    return new Condition<>(
        transcript -> wrongWordsInBestRun(transcript) <= maxWrongWords(),
        "the words of %s (\"%s\") with at most %d wrong",
        name,
        reference,
        maxWrongWords());
  }

  private int maxWrongWords() {
    return (int) Math.floor(WordErrorRate.words(reference).size() * MAX_WRONG_SHARE);
  }

  private int wrongWordsInBestRun(String transcript) {
    List<String> expected = WordErrorRate.words(reference);
    List<String> heard = WordErrorRate.words(transcript);
    int best = WordErrorRate.errors(expected, heard);
    int slack = maxWrongWords();
    for (int start = 0; start < heard.size(); start++) {
      for (int length = Math.max(1, expected.size() - slack);
          length <= expected.size() + slack && start + length <= heard.size();
          length++) {
        best = Math.min(best, WordErrorRate.errors(expected, heard.subList(start, start + length)));
      }
    }
    return best;
  }

  public byte[] bytes() {
    try {
      return Files.readAllBytes(wav);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
