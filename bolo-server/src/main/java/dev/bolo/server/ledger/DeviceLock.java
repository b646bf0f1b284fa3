package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The lock on one device's row, taken first by every transaction that changes what the device holds
 * or is charged, or how many uploads it has unfinished: such transactions of one device, from any
 * number of gateway instances, run one after another against committed state.
 */
final class DeviceLock {

  private DeviceLock() {}

  /**
   * Locks the device's row until the transaction ends (PostgreSQL: a row lock; SQLite: the
   * database's write lock, already held by an IMMEDIATE transaction). A no-op UPDATE, because
   * SQLite has no {@code SELECT ... FOR UPDATE}.
   *
   * @throws IllegalArgumentException when the ledger has no such device
   */
  static void lock(Jdbc jdbc, Connection c, String name) throws SQLException {
    if (jdbc.update(c, "UPDATE devices SET charged_ms = charged_ms WHERE name = ?", name) == 0) {
      throw new IllegalArgumentException("no such device in the ledger: " + name);
    }
  }
}
