package dev.bolo.server.ledger;

/** The answer to {@link Ledger#reserve}: may this device spend these seconds? */
public sealed interface Reservation {

  /**
   * The seconds are held for this work until {@link Ledger#commit} or {@link Ledger#release}, or
   * until the work's deadline passes.
   *
   * @param id identifies the hold in the ledger
   * @param device who holds it
   * @param workKey the work the hold is for; charged at most once per device within the window
   * @param audioMillis how much audio is held
   */
  record Granted(String id, String device, String workKey, long audioMillis)
      implements Reservation {}

  /**
   * The device's seconds are not spent, but held by other notes in progress (or by an instance that
   * died mid-call, until its work's deadline): the note may fit once they end, so the phone is told
   * to resend later rather than to give up (a 402 would lose the note).
   *
   * @param retryAfter when a resend is worth it: the earliest hold's expiry, at most 30 s
   */
  record Held(java.time.Duration retryAfter) implements Reservation {}

  /**
   * The device's free seconds are spent.
   *
   * @param remainingMillis what is left, less than the note needs
   */
  record Exhausted(long remainingMillis) implements Reservation {}
}
