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
  void aDevicesUploadsHoldAtMostItsShareTogetherAndAReleaseGivesItBack() {
    SpoolHolds shared =
        new SpoolHolds(
            bytes -> {
              inUse.addAndGet(bytes);
              return true;
            },
            bytes -> inUse.addAndGet(-bytes),
            500);
    assertThat(shared.hold("phone", "a", 300)).isEqualTo(SpoolHolds.Hold.HELD);
    assertThat(shared.hold("tablet", "b", 400)).as("its own share").isEqualTo(SpoolHolds.Hold.HELD);

    assertThat(shared.hold("phone", "c", 201)).isEqualTo(SpoolHolds.Hold.DEVICE_FULL);
    assertThat(shared.holds("c")).isFalse();
    assertThat(inUse).hasValue(700);
    assertThat(shared.hold("phone", "c", 200)).isEqualTo(SpoolHolds.Hold.HELD);

    shared.release("a");
    assertThat(shared.heldBy("phone")).isEqualTo(200);
    assertThat(shared.hold("phone", "d", 300)).isEqualTo(SpoolHolds.Hold.HELD);
    assertThat(inUse).hasValue(900);
  }

  @Test
  void anUploadHoldingAlreadyKeepsWhatItHolds() {
    budget.hold("a", 600);

    assertThat(budget.hold("a", 600)).isTrue();

    assertThat(inUse).hasValue(600);
  }
}
