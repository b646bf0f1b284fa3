package dev.bolo.server.ledger;

/**
 * What one roll-up of old usage did.
 *
 * @param usageRows usage log rows moved into daily totals
 * @param charges charge log rows moved into daily totals
 * @param batches transactions committed
 * @param complete false when the roll-up stopped early (the gateway is shutting down); the next one
 *     continues where it stopped
 */
public record RolledUp(long usageRows, long charges, int batches, boolean complete) {

  /** Nothing was old enough. */
  public static final RolledUp NOTHING = new RolledUp(0, 0, 0, true);

  public RolledUp {
    if (usageRows < 0 || charges < 0 || batches < 0) {
      throw new IllegalArgumentException(
          "counts must be >= 0: " + usageRows + ", " + charges + ", " + batches);
    }
  }
}
