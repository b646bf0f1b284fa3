package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import dev.bolo.audio.TestFiles.Reference;
import java.io.IOException;
import java.lang.management.ManagementFactory;
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

  /** Notes whose length is read from their headers, not searched for from their end. */
  static List<Reference> measuredFromHeaders() {
    return references().stream()
        .filter(reference -> !reference.file().endsWith(".ogg"))
        .filter(reference -> !reference.file().startsWith("flac-streamed"))
        .toList();
  }

  /**
   * A note in memory is read in place: measuring it copies none of it. Thousands of notes are
   * measured a second under load, and each was copied first (up to 64 KiB, at least 11 KB for every
   * note here). Ogg, and FLAC without a sample count, search their end through a window.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("measuredFromHeaders")
  void aNoteInMemoryIsMeasuredWithoutCopyingIt(Reference reference) throws IOException {
    byte[] bytes = TestFiles.audio(reference.file());
    AudioContainer container = TestFiles.containerOf(bytes);
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long fewest = Long.MAX_VALUE;
    // The fewest bytes of several runs: the first ones also load classes and fill caches.
    for (int run = 0; run < 5; run++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      AudioDurations.measure(container, SeekableSource.of(bytes));
      fewest = Math.min(fewest, threads.getCurrentThreadAllocatedBytes() - before);
    }

    assertThat(fewest).isLessThan(10 * 1024);
  }
}
