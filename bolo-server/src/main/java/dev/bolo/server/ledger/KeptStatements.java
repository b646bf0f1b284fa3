package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.sqlite.SQLiteConnection;

/**
 * The ledger's INSERT, UPDATE and DELETE statements, each prepared once per SQLite connection and
 * run again with new parameters. sqlite-jdbc keeps no statement cache and HikariCP leaves that to
 * the driver, so every write parsed and planned its SQL afresh: a fifth of the ledger writer's CPU
 * under load (async-profiler, 50 connections of 200 KB notes). PostgreSQL's driver caches its own.
 *
 * <p>The statements are prepared on the pooled connection's physical SQLite connection, so the pool
 * does not close them when the connection goes back to it; they end with that connection, and are
 * forgotten once it is closed. A kept statement holds no lock between uses: sqlite-jdbc resets a
 * statement after {@code executeUpdate}, whether it succeeded or not. The pool hands a connection
 * to one thread at a time, so one connection's statements are never used concurrently.
 *
 * <p>Each {@link Jdbc} keeps its own: two ledgers in one JVM share none. Thread safe.
 */
final class KeptStatements {

  private final Map<SQLiteConnection, Map<String, PreparedStatement>> byConnection =
      new IdentityHashMap<>();

  /**
   * The statement for {@code sql} kept on {@code connection}'s SQLite connection, prepared now if
   * it is the first; null for any other database, whose caller prepares and closes its own.
   */
  @Nullable PreparedStatement forUpdate(Connection connection, String sql) throws SQLException {
    if (!connection.isWrapperFor(SQLiteConnection.class)) {
      return null;
    }
    SQLiteConnection sqlite = connection.unwrap(SQLiteConnection.class);
    Map<String, PreparedStatement> kept;
    synchronized (byConnection) {
      kept = byConnection.get(sqlite);
      if (kept == null) {
        // A new physical connection: the pool retired the one before (or the database moved).
        byConnection.entrySet().removeIf(KeptStatements::forgetIfClosed);
        kept = new HashMap<>();
        byConnection.put(sqlite, kept);
      }
    }
    PreparedStatement statement = kept.get(sql);
    if (statement == null || statement.isClosed()) {
      statement = sqlite.prepareStatement(sql);
      kept.put(sql, statement);
    }
    return statement;
  }

  /** Whether statements of {@code connection} are kept: until it closes and the next one comes. */
  boolean keepsFor(SQLiteConnection connection) {
    synchronized (byConnection) {
      return byConnection.containsKey(connection);
    }
  }

  private static boolean forgetIfClosed(
      Map.Entry<SQLiteConnection, Map<String, PreparedStatement>> kept) {
    try {
      if (!kept.getKey().isClosed()) {
        return false;
      }
      for (PreparedStatement statement : kept.getValue().values()) {
        statement.close();
      }
    } catch (SQLException e) {
      // Closed with its connection already.
    }
    return true;
  }
}
