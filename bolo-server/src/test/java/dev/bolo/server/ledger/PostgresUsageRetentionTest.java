package dev.bolo.server.ledger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The usage roll-up on a real PostgreSQL server, started from Maven Central's binaries. */
class PostgresUsageRetentionTest extends UsageRetentionContractTest {

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static EmbeddedPostgres postgres;

  @BeforeAll
  static void startPostgres() throws IOException {
    postgres = EmbeddedPostgres.builder().start();
  }

  @AfterAll
  static void stopPostgres() throws IOException {
    postgres.close();
  }

  @Override
  String freshDatabaseUrl() throws SQLException {
    String name = "usage_" + DATABASES.incrementAndGet();
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return postgres.getJdbcUrl("postgres", name);
  }
}
