package dev.bolo.server.ledger;

import org.jspecify.annotations.Nullable;

/** The jobs' tables on the embedded SQLite file. */
class SqliteJobStoreTest extends JobStoreContract {

  @Override
  @Nullable String freshDatabaseUrl() {
    return null;
  }
}
