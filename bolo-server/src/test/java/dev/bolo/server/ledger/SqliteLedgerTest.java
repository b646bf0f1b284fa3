package dev.bolo.server.ledger;

import org.jspecify.annotations.Nullable;

/** The ledger contract on the embedded SQLite file under the data dir. */
class SqliteLedgerTest extends LedgerContractTest {

  @Override
  @Nullable String freshDatabaseUrl() {
    return null;
  }
}
