package dev.bolo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.bench.ProcessStats.ThreadTimes;
import dev.bolo.bench.ProcessStats.ThreadTimes.Named;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A gateway's CPU by thread, read between two moments. */
class ProcessStatsTest {

  @Test
  void aThreadRenamedInBetweenCountsOnlyWhatItSpentSinceUnderItsNewName() {
    // OkHttp's task runner names its thread after the task it runs: thread 12 changed its name.
    ThreadTimes before =
        new ThreadTimes(
            Map.of(
                "12", new Named("OkHttp TaskRunner", 1_000_000_000),
                "20", new Named("C2 CompilerThre", 400_000_000)));
    ThreadTimes after =
        new ThreadTimes(
            Map.of(
                "12", new Named("OkHttp Connecti", 1_010_000_000),
                "20", new Named("C2 CompilerThre", 430_000_000),
                "31", new Named("C1 CompilerThre", 5_000_000)));

    assertThat(after.spentSince(before))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("OkHttp Connecti", 10_000_000L, "C CompilerThre", 35_000_000L));
    assertThat(TogetherRounds.compilerMillis(before, after)).isEqualTo(35);
    assertThat(TogetherRounds.compilerShare(before, after)).isEqualTo(100.0 * 35 / 45);
  }

  @Test
  void readsThisProcesssOwnThreadsByIdWithTheirNames() throws Exception {
    ThreadTimes now = ProcessStats.threads(ProcessHandle.current().pid());
    assertThat(now.threads()).isNotEmpty();
    assertThat(now.threads().keySet()).allMatch(id -> id.chars().allMatch(Character::isDigit));
    assertThat(now.threads().values()).anyMatch(thread -> thread.nanos() > 0);
  }
}
