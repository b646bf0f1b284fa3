package dev.bolo.server.ledger;

import dev.bolo.server.Readiness;
import java.util.Map;
import java.util.Optional;

/**
 * Devices, their quota and their usage. Quota is reserved before an engine is called, committed
 * once when the work succeeds and released when it fails, so concurrent notes cannot overspend and
 * replays are never charged. Thread safe.
 */
public interface Ledger extends AutoCloseable {

  /**
   * A ledger of static devices only, with unlimited quota, keeping usage in memory: for tests and
   * for running without a database.
   */
  static Ledger ofStaticTokens(Map<String, String> tokensByDevice) {
    return new StaticLedger(tokensByDevice);
  }

  /** The device owning {@code token}; looked up by the token's hash, in constant time. */
  Optional<Device> authenticate(String token);

  /** Holds {@code audioMillis} of the device's quota for one piece of work. */
  Reservation reserve(Device device, long audioMillis);

  /** Charges a granted hold: the work succeeded. */
  void commit(Reservation.Granted reservation);

  /** Gives a granted hold back: the work failed. */
  void release(Reservation.Granted reservation);

  /** Appends one answered request to the usage log. */
  void record(UsageRecord usage);

  default Readiness readiness() {
    return Readiness.ok();
  }

  @Override
  default void close() {}
}
