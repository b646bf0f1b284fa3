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

  /**
   * The webhook signing secrets of {@code device} now, the current one first, then one replaced
   * less than 24 hours ago; empty when the device is unknown, revoked, or has no secret yet (it was
   * enrolled before webhooks existed: {@link #rotateWebhookSecret} gives it one). Read from the
   * database each time, so a rotation by the CLI or another instance signs the next event.
   */
  java.util.List<String> webhookSecrets(String device);

  /** The state of resumable uploads, in this ledger's database. */
  UploadRegistry uploadRegistry();

  /** Jobs and their notes, in this ledger's database. */
  JobStore jobs();

  /** The webhook events of ended jobs, in this ledger's database. */
  WebhookOutbox webhookOutbox();
}
