package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.audio.TestFiles.Reference;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every reference note, cut short and with bytes overwritten at random (a seeded {@link Random}, so
 * a failure repeats), is answered with a {@link Measurement}: no parser throws, loops forever or
 * allocates by a header's say-so. A wider search belongs to a coverage-guided fuzzer; this keeps
 * the basics from regressing.
 */
class MutatedNoteTest {

  private static final int MUTANTS_PER_NOTE = 300;

  static List<Reference> references() {
    return TestFiles.references();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("references")
  void everyCutOfANoteIsAnsweredWithAMeasurement(Reference reference) throws IOException {
    byte[] note = TestFiles.audio(reference.file());
    AudioContainer container = TestFiles.containerOf(note);
    List<Measurement> answers = new ArrayList<>();
    for (int length = 0; length < note.length; length += Math.max(1, length / 3)) {
      answers.add(AudioDurations.measure(container, SeekableSource.of(note, length)));
    }
    assertThat(answers).doesNotContainNull();
    // Cut after 1 byte, the note's header is gone: nothing to measure.
    assertThat(answers.get(1)).isInstanceOf(Measurement.Unmeasurable.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("references")
  void everyMutantOfANoteIsAnsweredWithAMeasurement(Reference reference) throws IOException {
    byte[] note = TestFiles.audio(reference.file());
    AudioContainer container = TestFiles.containerOf(note);
    Random random = new Random(reference.file().hashCode());
    int unchanged = 0;
    for (int i = 0; i < MUTANTS_PER_NOTE; i++) {
      byte[] mutant = mutate(note, random);
      Measurement measurement = AudioDurations.measure(container, SeekableSource.of(mutant));
      assertThat(measurement).as("mutant %d", i).isNotNull();
      if (measurement.equals(AudioDurations.measure(container, SeekableSource.of(note)))) {
        unchanged++;
      }
    }
    // The mutations reach the headers: some mutants measure differently from the note.
    assertThat(unchanged).isLessThan(MUTANTS_PER_NOTE);
  }

  /** A few bytes overwritten, mostly in the first and last 512 bytes where the headers are. */
  private static byte[] mutate(byte[] note, Random random) {
    byte[] mutant = Arrays.copyOf(note, note.length);
    int changes = 1 + random.nextInt(8);
    for (int c = 0; c < changes; c++) {
      int window = Math.min(512, mutant.length);
      int at =
          switch (random.nextInt(3)) {
            case 0 -> random.nextInt(window);
            case 1 -> mutant.length - 1 - random.nextInt(window);
            default -> random.nextInt(mutant.length);
          };
      mutant[at] =
          switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> (byte) 0xff;
            default -> (byte) random.nextInt(256);
          };
    }
    return mutant;
  }
}
