package dev.bolo.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bolo.audio.SeekableSource;
import dev.bolo.testkit.CleanText;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;

/**
 * FFmpeg's demuxers and decoders on damaged and hostile notes, through {@link PcmDecoder}: every
 * input decodes, or is refused as {@link UndecodableAudioException}; nothing else is thrown, the
 * native side never brings the JVM down, decoding the same bytes twice gives the same samples (no
 * state leaks from one note into the next), and a refusal's sentence and FFmpeg's words in it are
 * each one line of printable text ({@link CleanText}). Seeds: phone recordings in every container
 * and notes that once failed (an m4a cut short, whose FFmpeg error carried native memory), in
 * {@code src/test/resources/dev/bolo/decode/PcmDecoderFuzzTestInputs}.
 */
class PcmDecoderFuzzTest {

  /** More samples than any seed decodes to; a mutated header may promise hours of audio. */
  private static final int MOST_SAMPLES = 16_000 * 60;

  @FuzzTest(maxDuration = "2s")
  @Timeout(10)
  void everyNoteDecodesToTheSameSamplesTwiceOrIsUndecodable(byte[] note) {
    float[] first = decode(note);
    float[] second = decode(note);
    if (first == null) {
      assertThat(second).as("refused once, refused twice").isNull();
      return;
    }
    assertThat(second).isNotNull();
    assertThat(Arrays.equals(first, second)).as("the same samples twice").isTrue();
  }

  /** The first minute of samples, or null when the note is undecodable. */
  private static float @org.jspecify.annotations.Nullable [] decode(byte[] note) {
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(note), 16_000)) {
      float[] samples = new float[4096];
      int count = 0;
      int n;
      while (count < MOST_SAMPLES
          && (n = decoder.read(samples, count, Math.min(4096, samples.length - count))) >= 0) {
        count += n;
        if (count == samples.length) {
          samples = Arrays.copyOf(samples, samples.length * 2);
        }
      }
      return Arrays.copyOf(samples, count);
    } catch (UndecodableAudioException e) {
      // Bolo's sentence goes to the client, FFmpeg's words to the log: both one clean line.
      CleanText.check(e.sentence());
      assertThat(e.getMessage()).isEqualTo(e.sentence());
      if (!e.detail().isEmpty()) {
        CleanText.check(e.detail());
      }
      return null;
    } catch (IOException e) {
      throw new AssertionError("a note in memory cannot fail to be read", e);
    }
  }
}
