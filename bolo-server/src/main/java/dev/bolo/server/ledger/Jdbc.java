package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Runs units of work on pooled connections and turns SQL failures into {@link LedgerException}. */
final class Jdbc {

  /** Work that needs a connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource dataSource;

  Jdbc(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Runs {@code work} in one transaction: committed if it returns, rolled back if it throws
   * anything, an {@link Error} too. The pool cannot be left to roll back: the ledger's kept write
   * statements ({@link KeptStatements}) run past its tracking, and its reset of auto-commit on the
   * connection's return would commit the unfinished transaction instead.
   */
  <T> T inTransaction(String what, Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        try {
          connection.rollback();
        } catch (SQLException rollbackFailed) {
          // No transaction began (its BEGIN failed): the original failure is the one to report.
          e.addSuppressed(rollbackFailed);
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new LedgerException(what + " failed: " + e.getMessage(), e);
    }
  }

  /** Runs {@code work} with auto-commit: each statement is its own transaction. */
  <T> T autoCommit(String what, Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      return work.run(connection);
    } catch (SQLException e) {
      throw new LedgerException(what + " failed: " + e.getMessage(), e);
    }
  }
}
