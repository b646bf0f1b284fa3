package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.testing.PgBouncer;
import java.sql.SQLException;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The ledger contract, concurrent charging and quota storms included, through PgBouncer in
 * transaction pooling mode: no server-side prepared statement outlives its transaction, and the
 * migrations run through the pooler, or through {@code BOLO_DATABASE_MIGRATION_URL} when given.
 */
class PgBouncerLedgerTest extends LedgerContractTest {

  @Override
  String freshDatabaseUrl() throws SQLException {
    return PgBouncer.fresh("bounced");
  }

  @Test
  void theSchemaIsMigratedThroughTheMigrationUrlWhenOneIsGiven() {
    String bounced = Objects.requireNonNull(config.jdbcUrl());
    String unreachable = bounced.replaceFirst(":\\d+/", ":1/");

    assertThatThrownBy(() -> open(config.withMigrationUrl(unreachable)))
        .isInstanceOf(LedgerException.class)
        .hasMessageContaining("cannot migrate");

    DurableLedger ledger = open(config.withMigrationUrl(PgBouncer.direct(bounced)));
    assertThat(ledger.readiness().isReady()).isTrue();
  }
}
