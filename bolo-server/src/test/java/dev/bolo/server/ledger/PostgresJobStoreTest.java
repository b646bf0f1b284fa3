package dev.bolo.server.ledger;

import dev.bolo.server.testing.PostgresDatabases;
import java.sql.SQLException;

/** The jobs' tables on a real PostgreSQL server ({@code FOR UPDATE SKIP LOCKED} claims). */
class PostgresJobStoreTest extends JobStoreContract {

  @Override
  String freshDatabaseUrl() throws SQLException {
    return PostgresDatabases.fresh("jobs");
  }
}
