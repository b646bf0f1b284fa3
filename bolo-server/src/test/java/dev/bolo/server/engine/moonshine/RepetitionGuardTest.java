package dev.bolo.server.engine.moonshine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RepetitionGuardTest {

  @Test
  void aPhraseOfSixTokensWrittenThreeTimesInARowIsCutToOneCopy() {
    int[] tokens = {9, 8, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15};

    assertThat(RepetitionGuard.cutAt(tokens, tokens.length)).isEqualTo(8);
  }

  @Test
  void aSingleTokenLoopsAfterSixteenInARowAndTwoTokensAfterEight() {
    int[] same = IntStream.concat(IntStream.of(5), IntStream.generate(() -> 7).limit(16)).toArray();
    int[] pair = IntStream.range(0, 16).map(i -> i % 2 == 0 ? 40 : 41).toArray();

    assertThat(RepetitionGuard.cutAt(same, same.length - 1)).isEqualTo(-1);
    assertThat(RepetitionGuard.cutAt(same, same.length)).isEqualTo(2);
    assertThat(RepetitionGuard.cutAt(pair, 14)).isEqualTo(-1);
    assertThat(RepetitionGuard.cutAt(pair, 16)).isEqualTo(2);
  }

  @Test
  void speechThatRepeatsItselfBrieflyIsNeverALoop() {
    // "no, no, no, no": two tokens four times; "I know I know I know": two tokens three times.
    int[] no = {3, 4, 5, 4, 5, 4, 5, 4, 5};
    int[] know = {306, 1073, 306, 1073, 306, 1073};

    assertThat(RepetitionGuard.cutAt(no, no.length)).isEqualTo(-1);
    assertThat(RepetitionGuard.cutAt(know, know.length)).isEqualTo(-1);
  }

  @Test
  void aLoopThatStoppedIsNotCut() {
    int[] tokens = {10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15, 99};

    assertThat(RepetitionGuard.cutAt(tokens, tokens.length)).isEqualTo(-1);
  }

  @Test
  void anyLoopLongEnoughIsCutRightAfterItsFirstCopyWhateverCameBefore() {
    java.util.Random random = new java.util.Random(48);
    for (int trial = 0; trial < 2_000; trial++) {
      int n = 1 + random.nextInt(RepetitionGuard.LONGEST_NGRAM);
      int repeats = Math.max(3, (16 + n - 1) / n) + random.nextInt(4);
      // The prefix's tokens (0–999) never occur in the phrase (1000–1999).
      int[] prefix = random.ints(random.nextInt(40), 0, 1000).toArray();
      int[] phrase = random.ints(n, 1000, 2000).toArray();
      int[] tokens =
          IntStream.concat(
                  IntStream.of(prefix), IntStream.range(0, n * repeats).map(i -> phrase[i % n]))
              .toArray();

      int cut = RepetitionGuard.cutAt(tokens, tokens.length);

      // A phrase that is itself a repetition (7 7 7) loops with a shorter period: cut sooner.
      assertThat(cut).as("trial %d", trial).isBetween(prefix.length + 1, prefix.length + n);
    }
  }
}
