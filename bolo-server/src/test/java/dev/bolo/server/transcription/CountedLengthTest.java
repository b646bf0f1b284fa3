package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The one rule for what a transcribed note is charged (PROTOCOL.md rule 8), as a table. */
class CountedLengthTest {

  private static final CountedLength MEASURED_SECOND = new CountedLength(1_000, true);
  private static final CountedLength ESTIMATED = new CountedLength(5_000, false);

  @Test
  void aMeasuredNoteIsChargedTheLongerOfItsHeaderAndWhatTheEngineHeard() {
    assertThat(MEASURED_SECOND.chargedFor(OptionalLong.of(60_000)))
        .isEqualTo(new CountedLength(60_000, true));
    assertThat(new CountedLength(60_000, true).chargedFor(OptionalLong.of(59_950)))
        .isEqualTo(new CountedLength(60_000, true));
    assertThat(MEASURED_SECOND.chargedFor(OptionalLong.empty())).isEqualTo(MEASURED_SECOND);
  }

  @Test
  void aNoteThatCouldNotBeMeasuredIsChargedWhatTheEngineHeardEitherWay() {
    assertThat(ESTIMATED.chargedFor(OptionalLong.of(3_000)))
        .isEqualTo(new CountedLength(3_000, false));
    assertThat(ESTIMATED.chargedFor(OptionalLong.of(9_000)))
        .isEqualTo(new CountedLength(9_000, false));
    assertThat(ESTIMATED.chargedFor(OptionalLong.empty())).isEqualTo(ESTIMATED);
  }
}
