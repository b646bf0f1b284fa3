package dev.bolo.server.ledger;

import dev.bolo.server.testing.PostgresDatabases;
import java.sql.SQLException;

/** Webhook secrets on a real PostgreSQL server. */
class PostgresWebhookSecretsTest extends WebhookSecretsContractTest {

  @Override
  String freshDatabaseUrl() throws SQLException {
    return PostgresDatabases.fresh("webhook_secrets");
  }
}
