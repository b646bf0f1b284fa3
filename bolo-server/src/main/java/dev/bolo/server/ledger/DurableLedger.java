package dev.bolo.server.ledger;

/**
 * A {@link Ledger} kept in a database, which operators can also administer and report on. Opened by
 * {@link Ledger#jdbc}; closing it closes its connection pool. Thread safe.
 */
public interface DurableLedger extends Ledger, DeviceAdmin, UsageReport {

  /**
   * Moves usage rows and charges of the UTC days that ended before the usage retention began into
   * per-device daily totals, which {@link #usage} goes on reporting. Safe to run at any time,
   * twice, concurrently from several instances, and after a crash in the middle: each day moves
   * once. Stops early, between transactions, when the calling thread is interrupted.
   *
   * @throws LedgerException when the database cannot be used; what was committed stays consistent
   */
  RolledUp rollUpUsage();

  /**
   * Waits until every usage row recorded so far is in the database: {@link #record} queues rows and
   * writes them in batches off the request's path.
   *
   * @throws LedgerException when they cannot be written
   */
  void flushWrites();

  /** The state of resumable uploads, in this ledger's database. */
  UploadRegistry uploadRegistry();

  /** Jobs and their notes, in this ledger's database. */
  JobStore jobs();

  /** The webhook events of ended jobs, in this ledger's database. */
  WebhookOutbox webhookOutbox();
}
