package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DrainDeadlineTest {

  private final AtomicLong nanos = new AtomicLong(5_000);

  /** Pauses pass at once; each is recorded. */
  private final List<Duration> pauses = new ArrayList<>();

  @Test
  void theTickerDecidesWhenItMoves() {
    DrainDeadline deadline = new DrainDeadline(nanos::get, pauses::add, Duration.ofSeconds(30));

    nanos.addAndGet(Duration.ofSeconds(20).toNanos());

    assertThat(deadline.elapsed()).isEqualTo(Duration.ofSeconds(20));
    assertThat(deadline.remaining(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
    assertThat(deadline.isPast(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void aTickerThatStandsStillStillRunsOutThroughTheDrainsOwnWaits() {
    DrainDeadline deadline = new DrainDeadline(nanos::get, pauses::add, Duration.ofSeconds(1));

    deadline.waited(Duration.ofMillis(600));
    assertThat(deadline.remaining(Duration.ZERO)).isEqualTo(Duration.ofMillis(400));
    deadline.waited(Duration.ofMillis(400));

    assertThat(deadline.isPast(Duration.ZERO)).isTrue();
    assertThat(deadline.elapsed()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aPauseIsTheSleepersAndCountsAsTimePassedWhileTheTickerStandsStill() throws Exception {
    DrainDeadline deadline = new DrainDeadline(nanos::get, pauses::add, Duration.ofSeconds(1));

    deadline.pause(Duration.ofMillis(700));
    deadline.pause(Duration.ofMillis(300));

    assertThat(pauses).containsExactly(Duration.ofMillis(700), Duration.ofMillis(300));
    assertThat(deadline.isPast(Duration.ZERO)).isTrue();
  }
}
