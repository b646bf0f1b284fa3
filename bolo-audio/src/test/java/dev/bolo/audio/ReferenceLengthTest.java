package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.audio.TestFiles.Reference;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every note in every container is measured within 50 ms of what ffprobe says. */
class ReferenceLengthTest {

  private static final long TOLERANCE_MS = 50;

  static List<Reference> references() {
    return TestFiles.references();
  }

  @Test
  void everyContainerHasReferenceNotes() {
    List<AudioContainer> covered =
        references().stream()
            .map(reference -> TestFiles.containerOf(TestFiles.audio(reference.file())))
            .distinct()
            .toList();
    assertThat(covered).containsExactlyInAnyOrder(AudioContainer.values());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("references")
  void aNoteInMemoryIsMeasuredWithinFiftyMillisecondsOfFfprobe(Reference reference)
      throws IOException {
    byte[] bytes = TestFiles.audio(reference.file());

    Measurement measurement =
        AudioDurations.measure(TestFiles.containerOf(bytes), SeekableSource.of(bytes));

    assertThat(measurement).isInstanceOf(Measurement.Measured.class);
    assertThat(((Measurement.Measured) measurement).millis())
        .isBetween(reference.millis() - TOLERANCE_MS, reference.millis() + TOLERANCE_MS);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("references")
  void aNoteOnDiskIsMeasuredAsTheSameNoteInMemory(Reference reference) throws IOException {
    byte[] bytes = TestFiles.audio(reference.file());
    AudioContainer container = TestFiles.containerOf(bytes);

    Measurement fromDisk = AudioDurations.measure(container, TestFiles.path(reference.file()));

    assertThat(fromDisk).isEqualTo(AudioDurations.measure(container, SeekableSource.of(bytes)));
    assertThat(AudioDurations.measure(SeekableSource.of(bytes))).isEqualTo(fromDisk);
  }
}
