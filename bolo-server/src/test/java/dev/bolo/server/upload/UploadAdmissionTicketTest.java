package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.upload.UploadAdmission.Body;
import dev.bolo.server.upload.UploadAdmission.Decision;
import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The admission of a body as a specification: the device's bodies at once, then the byte budget,
 * then a slot; a ticket gives back what it holds when closed, once; a body turned away at a later
 * step gives back what the earlier steps took.
 */
class UploadAdmissionTicketTest {

  /** Bodies up to this size are admitted by the byte budget at once. */
  private static final long SMALL_BYTES = 10;

  private static UploadAdmission admission(int slots, int perDevice, long budgetBytes) {
    return new UploadAdmission(
        slots, perDevice, new UploadBudget(budgetBytes, SMALL_BYTES), Duration.ZERO, () -> 0);
  }

  @Test
  void aTicketHoldsItsBodysShareOfTheBudgetUntilItIsClosed() {
    UploadAdmission admission = admission(4, 4, 100);

    UploadAdmission.Ticket ticket = admitted(admission.admit("phone", 60, Body.NOTE));
    assertThat(admission.admittedBytes()).isEqualTo(60);

    ticket.close();
    assertThat(admission.admittedBytes()).isZero();
  }

  @Test
  void aDeviceSendingItsMostBodiesIsTurnedAwayAtOnceWhileAnotherDeviceIsAdmitted() {
    UploadAdmission admission = admission(4, 1, 100);

    try (UploadAdmission.Ticket phone = admitted(admission.admit("phone", 5, Body.NOTE));
        UploadAdmission.Ticket tablet = admitted(admission.admit("tablet", 5, Body.NOTE))) {
      turnedAway(
          admission.admit("phone", 5, Body.NOTE),
          UploadResult.Reason.DEVICE_BUSY,
          "this device is already sending 1 notes at once; resend when one of them has arrived");
    }
    admitted(admission.admit("phone", 5, Body.NOTE)).close();
  }

  @Test
  void aBodyTheBudgetHasNoRoomForIsTurnedAwayWithARetryAfterAndGivesBackTheDevicesPlace() {
    UploadAdmission admission = admission(4, 1, 100);
    UploadAdmission.Ticket large = admitted(admission.admit("phone", 80, Body.APPEND));

    UploadResult.Invalid refused =
        turnedAway(
            admission.admit("tablet", 80, Body.APPEND),
            UploadResult.Reason.BUDGET_FULL,
            "the gateway is reading as many large uploads as it can take; resume in 1 s");

    assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    large.close();
    // The tablet's place among its bodies was given back with the refusal.
    admitted(admission.admit("tablet", 80, Body.APPEND)).close();
  }

  @Test
  void aBodyWithoutASlotIsTurnedAwayAndGivesBackItsShareOfTheBudgetAndItsDevicesPlace() {
    UploadAdmission admission = admission(1, 1, 100);

    try (UploadAdmission.Ticket holder = admitted(admission.admit("phone", 30, Body.NOTE))) {
      turnedAway(
          admission.admit("tablet", 30, Body.APPEND),
          UploadResult.Reason.NO_SLOT,
          "too many uploads at once; resume shortly");
      assertThat(admission.admittedBytes()).isEqualTo(30);
    }
    admitted(admission.admit("tablet", 30, Body.APPEND)).close();
    assertThat(admission.admittedBytes()).isZero();
  }

  @Test
  void aBodyWaitsForASlotOnlyWhatItsTurnInTheBudgetLeftOfTheQueueWait() {
    // The queue wait's deadline is read on the ticker: by its second reading (after the budget
    // let the body in) the whole wait has passed, so no wait for a slot is left.
    long[] readings = {0, Duration.ofMinutes(10).toNanos()};
    int[] read = {0};
    UploadAdmission admission =
        new UploadAdmission(
            1,
            4,
            new UploadBudget(100, SMALL_BYTES),
            Duration.ofMinutes(10),
            () -> readings[Math.min(read[0]++, readings.length - 1)]);

    try (UploadAdmission.Ticket holder = admitted(admission.admit("phone", 5, Body.NOTE))) {
      read[0] = 0;
      turnedAway(
          admission.admit("tablet", 5, Body.NOTE),
          UploadResult.Reason.NO_SLOT,
          "too many uploads at once; resend shortly");
    }
  }

  @Test
  void aBodyWaitingForASlotWithinTheQueueWaitIsAdmittedWhenOneComesFree() throws Exception {
    UploadAdmission admission =
        new UploadAdmission(
            1, 4, new UploadBudget(100, SMALL_BYTES), Duration.ofMinutes(10), () -> 0);
    UploadAdmission.Ticket holder = admitted(admission.admit("phone", 5, Body.NOTE));

    try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Decision> waiter = threads.submit(() -> admission.admit("tablet", 5, Body.NOTE));
      Await.until(
          () -> admission.waitingForSlot() == 1, () -> admission.waitingForSlot() + " waiting");
      assertThat(waiter).isNotDone();

      holder.close();
      admitted(waiter.get(60, TimeUnit.SECONDS)).close();
    }
  }

  @Test
  void closingATicketTwiceGivesBackItsHoldingsOnce() {
    UploadAdmission admission = admission(2, 4, 100);
    UploadAdmission.Ticket ticket = admitted(admission.admit("phone", 50, Body.NOTE));

    ticket.close();
    ticket.close();

    // Given back twice, the budget would take three bodies of 50 and the slots three bodies.
    UploadAdmission.Ticket first = admitted(admission.admit("phone", 50, Body.NOTE));
    UploadAdmission.Ticket second = admitted(admission.admit("phone", 50, Body.NOTE));
    assertThat(admission.admittedBytes()).isEqualTo(100);
    assertThat(admission.admit("phone", 50, Body.NOTE)).isInstanceOf(Decision.TurnedAway.class);
    first.close();
    second.close();
  }

  @Test
  void aBodyOfNoDeviceIsNotCountedAgainstAnyDevice() {
    UploadAdmission admission = admission(4, 1, 100);
    UploadAdmission.Ticket anonymous = admitted(admission.admit(null, 5, Body.NOTE));

    admitted(admission.admit("phone", 5, Body.NOTE)).close();
    anonymous.close();
  }

  private static UploadAdmission.Ticket admitted(Decision decision) {
    assertThat(decision).isInstanceOf(Decision.Admitted.class);
    return ((Decision.Admitted) decision).ticket();
  }

  private static UploadResult.Invalid turnedAway(
      Decision decision, UploadResult.Reason reason, String message) {
    assertThat(decision).isInstanceOf(Decision.TurnedAway.class);
    UploadResult.Invalid why = ((Decision.TurnedAway) decision).why();
    assertThat(why.reason()).isEqualTo(reason);
    assertThat(why.message()).isEqualTo(message);
    return why;
  }
}
