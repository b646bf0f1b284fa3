package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SpoolBudgetTest {

  @Test
  void holdsUpToItsBudgetAndRefusesTheHoldThatWouldPassItWithoutHoldingAnything() {
    SpoolBudget budget = new SpoolBudget(100);

    assertThat(budget.tryHold(60)).isTrue();
    assertThat(budget.tryHold(50)).isFalse();
    assertThat(budget.inUseBytes()).isEqualTo(60);
    assertThat(budget.tryHold(40)).isTrue();
    assertThat(budget.inUseBytes()).isEqualTo(100);
  }

  @Test
  void releasedBytesCanBeHeldAgain() {
    SpoolBudget budget = new SpoolBudget(100);
    assertThat(budget.tryHold(100)).isTrue();

    budget.release(30);

    assertThat(budget.inUseBytes()).isEqualTo(70);
    assertThat(budget.tryHold(30)).isTrue();
    assertThat(budget.tryHold(1)).isFalse();
  }

  @Test
  void holdsRacingForTheLastRoomNeverPassTheBudget() throws Exception {
    SpoolBudget budget = new SpoolBudget(500);
    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> held = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      for (int t = 0; t < threads; t++) {
        held.add(
            pool.submit(
                () -> {
                  start.await();
                  int mine = 0;
                  for (int i = 0; i < 1000; i++) {
                    if (budget.tryHold(1)) {
                      mine++;
                    }
                  }
                  return mine;
                }));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> each : held) {
        total += each.get(10, TimeUnit.SECONDS);
      }

      assertThat(total).isEqualTo(500);
      assertThat(budget.inUseBytes()).isEqualTo(500);
    }
  }

  @Test
  void anUnboundedBudgetHoldsAnything() {
    SpoolBudget budget = SpoolBudget.unbounded();

    assertThat(budget.tryHold(1L << 50)).isTrue();
    assertThat(budget.inUseBytes()).isEqualTo(1L << 50);
  }

  @Test
  void aBudgetOfNoBytesAndANegativeHoldAreMistakes() {
    assertThatThrownBy(() -> new SpoolBudget(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBytes must be positive: 0");
    assertThatThrownBy(() -> new SpoolBudget(10).tryHold(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bytes must not be negative: -1");
  }
}
