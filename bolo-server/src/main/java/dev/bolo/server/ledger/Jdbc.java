package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs units of work on pooled connections and turns SQL failures into {@link LedgerException};
 * runs the ledger's writes on a connection ({@link #update}), keeping their statements on the
 * connections of its own data source ({@link KeptStatements}). Thread safe.
 */
final class Jdbc {

  /** Work that needs a connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource dataSource;
  private final DataSource readers;
  private final KeptStatements kept = new KeptStatements();

  /** Reads and writes on the same connections. */
  Jdbc(DataSource dataSource) {
    this(dataSource, dataSource);
  }

  /**
   * @param readers connections for {@link #read}; may be {@code dataSource} itself
   */
  Jdbc(DataSource dataSource, DataSource readers) {
    this.dataSource = dataSource;
    this.readers = readers;
  }

  /**
   * Runs {@code work}, which only reads, on a reader's connection: on SQLite it never waits for the
   * writer's commits.
   */
  <T> T read(String what, Work<T> work) {
    try (Connection connection = readers.getConnection()) {
      return work.run(connection);
    } catch (SQLException e) {
      throw new LedgerException(what + " failed: " + e.getMessage(), e);
    }
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

  /** The write statements this Jdbc keeps, for tests. */
  KeptStatements keptStatements() {
    return kept;
  }

  /** Runs an INSERT, UPDATE or DELETE binding Strings, Integers and Longs; returns rows changed. */
  int update(Connection c, String sql, @Nullable Object... parameters) throws SQLException {
    PreparedStatement statement = kept.forUpdate(c, sql);
    if (statement != null) {
      return executeUpdate(statement, parameters);
    }
    try (PreparedStatement s = c.prepareStatement(sql)) {
      return executeUpdate(s, parameters);
    }
  }

  private static int executeUpdate(PreparedStatement s, @Nullable Object... parameters)
      throws SQLException {
    for (int i = 0; i < parameters.length; i++) {
      switch (parameters[i]) {
        case String text -> s.setString(i + 1, text);
        case Integer number -> s.setInt(i + 1, number);
        case Long number -> s.setLong(i + 1, number);
        case null -> s.setNull(i + 1, Types.VARCHAR);
        default ->
            throw new IllegalArgumentException(
                "unsupported parameter type: " + parameters[i].getClass());
      }
    }
    return s.executeUpdate();
  }
}
