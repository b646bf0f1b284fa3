package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Timeout;

/**
 * Container sniffing on arbitrary first bytes: it never throws, decides from the bytes it is told
 * are valid and no others, and needs no more than {@link AudioContainer#SNIFF_BYTES} of them.
 * Inputs: {@code src/test/resources/dev/bolo/audio/AudioContainerFuzzTestInputs}.
 */
class AudioContainerFuzzTest {

  @FuzzTest(maxDuration = "2s")
  @Timeout(5)
  void sniffingDecidesFromTheValidFirstBytesOnly(byte[] head) {
    Optional<AudioContainer> atSniffBytes =
        AudioContainer.sniff(head, Math.min(head.length, AudioContainer.SNIFF_BYTES));
    for (int length = 0; length <= head.length; length++) {
      Optional<AudioContainer> found = AudioContainer.sniff(head, length);

      // Bytes past the valid length are not looked at: flipping them changes nothing.
      byte[] flipped = head.clone();
      for (int i = length; i < flipped.length; i++) {
        flipped[i] = (byte) ~flipped[i];
      }
      assertThat(AudioContainer.sniff(flipped, length)).isEqualTo(found);

      // A shorter array holding just the valid bytes gives the same answer.
      assertThat(AudioContainer.sniff(Arrays.copyOf(head, length), length)).isEqualTo(found);

      // SNIFF_BYTES is enough: more valid bytes never change the answer.
      if (length >= AudioContainer.SNIFF_BYTES) {
        assertThat(found).isEqualTo(atSniffBytes);
      }
    }
  }
}
