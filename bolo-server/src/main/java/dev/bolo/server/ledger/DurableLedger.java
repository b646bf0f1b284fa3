package dev.bolo.server.ledger;

/**
 * A {@link Ledger} kept in a database, which operators can also administer and report on. Opened by
 * {@link Ledger#jdbc}; closing it closes its connection pool. Thread safe.
 */
public interface DurableLedger extends Ledger, DeviceAdmin, UsageReport {}
