package dev.bolo.server.ledger;

import dev.bolo.server.testing.PostgresDatabases;
import java.sql.SQLException;

/** The ledger contract on a real PostgreSQL server. */
class PostgresLedgerTest extends LedgerContractTest {

  @Override
  String freshDatabaseUrl() throws SQLException {
    return PostgresDatabases.fresh("ledger");
  }
}
