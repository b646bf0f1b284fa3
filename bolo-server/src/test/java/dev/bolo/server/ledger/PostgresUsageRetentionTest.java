package dev.bolo.server.ledger;

import dev.bolo.server.testing.PostgresDatabases;
import java.sql.SQLException;

/** The usage roll-up on a real PostgreSQL server. */
class PostgresUsageRetentionTest extends UsageRetentionContractTest {

  @Override
  String freshDatabaseUrl() throws SQLException {
    return PostgresDatabases.fresh("usage");
  }
}
