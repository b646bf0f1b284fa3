package dev.bolo.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The kit's ticker and clocks move only when a test moves them. */
class FakeTimeTest {

  private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

  @Test
  void aTickerStartsWhereItSaysAndMovesByWhatItIsAdvanced() {
    FakeTicker ticker = FakeTicker.atOneSecond();

    ticker.advance(Duration.ofMillis(1500));

    assertThat(ticker.getAsLong()).isEqualTo(2_500_000_000L);
    assertThat(FakeTicker.atZero().getAsLong()).isZero();
  }

  @Test
  void aWallClockFromATickerMovesWithIt() {
    FakeTicker ticker = FakeTicker.atZero();
    Clock clock = ticker.wallClockFrom(START);

    ticker.advance(Duration.ofMinutes(61));

    assertThat(clock.instant()).isEqualTo(START.plus(Duration.ofMinutes(61)));
  }

  @Test
  void aMutableClockIsSetAndAdvancedByHand() {
    MutableClock clock = MutableClock.at(START);

    clock.advance(Duration.ofDays(1));
    assertThat(clock.instant()).isEqualTo(START.plus(Duration.ofDays(1)));

    clock.set(START);
    assertThat(clock.millis()).isEqualTo(START.toEpochMilli());
  }
}
