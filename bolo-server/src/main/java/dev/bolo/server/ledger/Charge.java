package dev.bolo.server.ledger;

/** What {@link Ledger#commit} did with a hold. */
public enum Charge {
  /** The work's seconds were added to the device's charge. */
  CHARGED,
  /**
   * The same work was already charged to the device within the charge window (another run, a
   * retried charge, another instance); the hold was dropped without a second charge.
   */
  ALREADY_CHARGED
}
