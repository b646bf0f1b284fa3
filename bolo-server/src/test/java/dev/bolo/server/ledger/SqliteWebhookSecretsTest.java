package dev.bolo.server.ledger;

import org.jspecify.annotations.Nullable;

/** Webhook secrets in the embedded SQLite file under the data dir. */
class SqliteWebhookSecretsTest extends WebhookSecretsContractTest {

  @Override
  @Nullable String freshDatabaseUrl() {
    return null;
  }
}
