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
  void aSingleTokenLoopsOnlyAfterSixteenInARow() {
    int[] tokens =
        IntStream.concat(IntStream.of(5), IntStream.generate(() -> 7).limit(16)).toArray();

    assertThat(RepetitionGuard.cutAt(tokens, tokens.length - 1)).isEqualTo(-1);
    assertThat(RepetitionGuard.cutAt(tokens, tokens.length)).isEqualTo(2);
  }

  @Test
  void speechThatRepeatsItselfBrieflyIsNotALoop() {
    // "no, no, no, no": two tokens four times; "I know I know I know": two tokens three times.
    int[] no = {3, 4, 5, 4, 5, 4, 5, 4, 5};
    int[] know = {306, 1073, 306, 1073, 306, 1073};

    assertThat(RepetitionGuard.cutAt(no, no.length)).isEqualTo(-1);
    assertThat(RepetitionGuard.cutAt(know, know.length)).isEqualTo(-1);
  }

  @Test
  void twoTokensLoopAfterEightRepeats() {
    int[] tokens = IntStream.range(0, 16).map(i -> i % 2 == 0 ? 40 : 41).toArray();

    assertThat(RepetitionGuard.cutAt(tokens, 14)).isEqualTo(-1);
    assertThat(RepetitionGuard.cutAt(tokens, 16)).isEqualTo(2);
  }

  @Test
  void aLoopThatStoppedIsNotCut() {
    int[] tokens = {10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15, 99};

    assertThat(RepetitionGuard.cutAt(tokens, tokens.length)).isEqualTo(-1);
  }
}
