package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SpoolHoldsTest {

  private static final long MAX = 1000;

  private final AtomicLong inUse = new AtomicLong();
  private final SpoolHolds budget =
      new SpoolHolds(
          bytes -> {
            if (inUse.addAndGet(bytes) > MAX) {
              inUse.addAndGet(-bytes);
              return false;
            }
            return true;
          },
          bytes -> inUse.addAndGet(-bytes));

  @Test
  void anUploadHoldsItsLengthUntilItIsReleased() {
    assertThat(budget.hold("a", 600)).isTrue();
    assertThat(inUse).hasValue(600);

    budget.release("a");

    assertThat(inUse).hasValue(0);
    assertThat(budget.holds("a")).isFalse();
  }

  @Test
  void anUploadReleasedTwiceGivesItsBytesBackOnce() {
    budget.hold("a", 600);
    budget.hold("b", 300);

    budget.release("a");
    budget.release("a");

    assertThat(inUse).hasValue(300);
  }

  @Test
  void aHoldPastTheBudgetHoldsNothing() {
    budget.hold("a", 600);

    assertThat(budget.hold("b", 500)).isFalse();

    assertThat(inUse).hasValue(600);
    assertThat(budget.holds("b")).isFalse();
    budget.release("b");
    assertThat(inUse).hasValue(600);
  }

  @Test
  void anUploadHoldingAlreadyKeepsWhatItHolds() {
    budget.hold("a", 600);

    assertThat(budget.hold("a", 600)).isTrue();

    assertThat(inUse).hasValue(600);
  }
}
