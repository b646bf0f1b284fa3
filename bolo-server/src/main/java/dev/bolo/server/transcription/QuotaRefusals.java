package dev.bolo.server.transcription;

import dev.bolo.server.ledger.Reservation;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;

/** What a device is told when the ledger grants its note no seconds. Stateless. */
final class QuotaRefusals {

  private QuotaRefusals() {}

  /** The refusal of a note of {@code length} whose device has fewer seconds left. */
  static WorkResult.Refused of(Reservation.Exhausted exhausted, CountedLength length) {
    return new WorkResult.Refused(
        Problem.QUOTA_EXHAUSTED,
        "this device's free audio is spent: "
            + exhausted.remainingMillis() / 1000
            + " s left, the note needs "
            + Math.max(1, length.millis() / 1000)
            + " s");
  }

  /** The refusal of a note whose device's remaining seconds other notes hold now. */
  static WorkResult.Refused of(Reservation.Held busy) {
    return new WorkResult.Refused(
        Problem.SERVER_UNAVAILABLE,
        "this device's remaining seconds are held by notes still in progress; resend in "
            + busy.retryAfter().toSeconds()
            + " s",
        busy.retryAfter());
  }
}
