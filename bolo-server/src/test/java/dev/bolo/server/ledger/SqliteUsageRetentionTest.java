package dev.bolo.server.ledger;

import org.jspecify.annotations.Nullable;

/** The usage roll-up on the embedded SQLite file under the data dir. */
class SqliteUsageRetentionTest extends UsageRetentionContractTest {

  @Override
  @Nullable String freshDatabaseUrl() {
    return null;
  }
}
