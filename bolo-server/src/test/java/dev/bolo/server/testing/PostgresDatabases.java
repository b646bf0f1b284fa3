package dev.bolo.server.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real PostgreSQL server (from Maven Central's binaries) for the ledger's contract tests and
 * the multi-instance gateway tests ({@link ClusterExtension}), started on first use and stopped
 * when the test JVM exits; each test gets a database of its own. Thread safe.
 */
public final class PostgresDatabases {

  private static final AtomicInteger DATABASES = new AtomicInteger();

  private PostgresDatabases() {}

  /** Holds the server: started when this class is first used. */
  private static final class Server {
    static final EmbeddedPostgres POSTGRES = start();

    private static EmbeddedPostgres start() {
      try {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(postgres)));
        return postgres;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start PostgreSQL", e);
      }
    }

    private static void closeQuietly(EmbeddedPostgres postgres) {
      try {
        postgres.close();
      } catch (IOException e) {
        // The JVM is exiting; the server's folder is temporary.
      }
    }
  }

  /** The JDBC URL of a new, empty database. */
  public static String fresh(String prefix) throws SQLException {
    return Server.POSTGRES.getJdbcUrl("postgres", create(prefix));
  }

  /** The port the server listens on, for a pooler in front of it. */
  public static int port() {
    return Server.POSTGRES.getPort();
  }

  /** Creates a new, empty database and answers its name. */
  public static String create(String prefix) throws SQLException {
    return create(Server.POSTGRES, prefix);
  }

  /**
   * Creates a new, empty database on {@code server} (one a test started with settings of its own)
   * and answers its name.
   */
  public static String create(EmbeddedPostgres server, String prefix) throws SQLException {
    String name = prefix + "_" + DATABASES.incrementAndGet();
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return name;
  }
}
