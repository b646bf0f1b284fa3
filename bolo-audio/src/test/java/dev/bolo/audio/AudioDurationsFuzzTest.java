package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bolo.testkit.CleanText;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;

/**
 * Every duration parser on arbitrary notes. The first byte picks the parser (a container's ordinal,
 * or any other value to sniff the container as the gateway does); the rest is the note. Whatever
 * the bytes, the answer is one of the {@link Measurement}s, never an exception; a measured length
 * is non-negative and no longer than the size allows (at least one byte per second); the answer
 * does not change when asked again, read in place or copied; the note is left as it was; the parser
 * reads the note a bounded number of times; and a reason or contradiction is one line of printable
 * text ({@link CleanText}), since a client may read it. Inputs: {@code
 * src/test/resources/dev/bolo/audio/AudioDurationsFuzzTestInputs}.
 */
class AudioDurationsFuzzTest {

  /**
   * Far more reads than any parser needs for a few kilobytes (the frame walks read one header per
   * frame, each frame at least a few bytes), far fewer than a loop that never ends.
   */
  private static final long MAX_READS = 100_000;

  @FuzzTest(maxDuration = "2s")
  @Timeout(5)
  void everyParserAnswersWithABoundedMeasurement(byte[] input) throws IOException {
    if (input.length == 0) {
      return;
    }
    AudioContainer[] containers = AudioContainer.values();
    int selector = Byte.toUnsignedInt(input[0]);
    byte[] note = Arrays.copyOfRange(input, 1, input.length);
    AtomicLong reads = new AtomicLong();
    SeekableSource source = counting(SeekableSource.of(note), reads);

    Measurement first;
    Measurement again;
    if (selector < containers.length) {
      first = AudioDurations.measure(containers[selector], source);
      again = AudioDurations.measure(containers[selector], SeekableSource.of(note));
    } else {
      first = AudioDurations.measure(source);
      again = AudioDurations.measure(SeekableSource.of(note));
      Optional<AudioContainer> sniffed =
          AudioContainer.sniff(note, Math.min(note.length, AudioContainer.SNIFF_BYTES));
      if (sniffed.isEmpty()) {
        assertThat(first)
            .isEqualTo(new Measurement.Unmeasurable("not a recognised audio container"));
      } else {
        assertThat(first).isEqualTo(AudioDurations.measure(sniffed.get(), SeekableSource.of(note)));
      }
    }

    // The counting source hides the array, so the first answer copied the note and the second read
    // it in place: both ways answer alike, and reading in place leaves the note as it was.
    assertThat(again).isEqualTo(first);
    assertThat(note).isEqualTo(Arrays.copyOfRange(input, 1, input.length));
    assertThat(reads.get()).isLessThanOrEqualTo(MAX_READS);
    // Java 17: no pattern switch here.
    if (first instanceof Measurement.Measured measured) {
      assertThat(measured.millis()).isBetween(0L, 1000L * note.length);
    } else if (first instanceof Measurement.Unmeasurable unmeasurable) {
      CleanText.check(unmeasurable.reason());
    } else if (first instanceof Measurement.Contradicts contradicts) {
      // A client reads this one in its 400 invalid_audio answer.
      CleanText.check(contradicts.message());
    }
  }

  private static SeekableSource counting(SeekableSource source, AtomicLong reads) {
    return new SeekableSource() {
      @Override
      public long size() {
        return source.size();
      }

      @Override
      public int read(long position, byte[] into, int offset, int length) throws IOException {
        reads.incrementAndGet();
        return source.read(position, into, offset, length);
      }
    };
  }
}
