package dev.bolo.server.ledger;

import dev.bolo.server.testing.PgBouncer;
import java.sql.SQLException;

/**
 * The ledger contract, concurrent charging and quota storms included, through PgBouncer in
 * transaction pooling mode: no server-side prepared statement outlives its transaction, and the
 * migrations run through the pooler.
 */
class PgBouncerLedgerTest extends LedgerContractTest {

  @Override
  String freshDatabaseUrl() throws SQLException {
    return PgBouncer.fresh("bounced");
  }
}
