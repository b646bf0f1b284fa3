package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The one ladder routes, breakers and pieces read of a failure: whose fault it is and how long to
 * wait.
 */
class FailureLadderTest {

  @Test
  void aRefusalOfTheNoteIsTheNotesOwnAndNoProvidersFault() {
    for (EngineResult.Failure refusal :
        new EngineResult.Failure[] {
          new EngineResult.Rejected("no"),
          new EngineResult.InvalidAudio("not audio"),
          new EngineResult.UnsupportedAudio("not this container")
        }) {
      assertThat(refusal.isNoteRefusal()).as(refusal.toString()).isTrue();
      assertThat(refusal.countsAgainstProvider()).as(refusal.toString()).isFalse();
      assertThat(refusal.retryAfter()).as(refusal.toString()).isNull();
    }
  }

  @Test
  void theGatewaysOwnSaturationIsNoProvidersFaultAndSaysWhenToComeBack() {
    EngineResult.Failure busy = new EngineResult.Saturated("busy", Duration.ofSeconds(2));

    assertThat(busy.isNoteRefusal()).isFalse();
    assertThat(busy.countsAgainstProvider()).isFalse();
    assertThat(busy.retryAfter()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aProviderDownBrokenOrSlowCountsAgainstItAndItsRetryAfterIsKept() {
    EngineResult.Failure told = new EngineResult.Unavailable("429", Duration.ofSeconds(60));
    for (EngineResult.Failure failure :
        new EngineResult.Failure[] {
          told,
          new EngineResult.Unavailable("down", null),
          new EngineResult.Failed("nonsense"),
          new EngineResult.TimedOut("slow")
        }) {
      assertThat(failure.isNoteRefusal()).as(failure.toString()).isFalse();
      assertThat(failure.countsAgainstProvider()).as(failure.toString()).isTrue();
    }
    assertThat(told.retryAfter()).isEqualTo(Duration.ofSeconds(60));
    assertThat(new EngineResult.Failed("nonsense").retryAfter()).isNull();
  }
}
