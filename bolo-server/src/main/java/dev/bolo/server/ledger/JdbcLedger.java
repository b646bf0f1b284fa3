package dev.bolo.server.ledger;

import com.zaxxer.hikari.HikariDataSource;
import dev.bolo.server.health.Readiness;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * {@link DurableLedger} on PostgreSQL or SQLite, composed of one part per concern: {@link
 * RememberedDevices} authenticates tokens and knows each device's limit from memory, {@link
 * Reservations} reserves, charges and releases quota, {@link UsageLog} writes usage rows, {@link
 * JdbcDeviceAdmin} and {@link JdbcUsageReport} serve operators, {@link UsageRollUp} keeps the usage
 * tables within their retention, {@link JdbcUploadRegistry} keeps resumable uploads, {@link
 * JdbcWebhookSecrets} devices' webhook signing secrets. Charges and usage rows of concurrent
 * requests share the transactions of one {@link GroupCommit}; usage rows never hold a request up.
 * Thread safe.
 */
final class JdbcLedger implements DurableLedger {

  private final HikariDataSource dataSource;
  private final HikariDataSource readers;
  private final RateLimiter rateLimiter;
  private final RememberedDevices remembered;
  private final Reservations reservations;
  private final UsageLog usageLog;
  private final GroupCommit writes;
  private final JdbcDeviceAdmin admin;
  private final JdbcWebhookSecrets webhookSecrets;
  private final JdbcUsageReport report;
  private final UsageRollUp rollUp;
  private final UploadRegistry uploads;
  private final JobStore jobs;
  private final WebhookOutbox webhooks;

  /** The database's URL without its parameters, for the operator: readiness details name it. */
  private final String database;

  private JdbcLedger(
      HikariDataSource dataSource,
      HikariDataSource readers,
      LedgerConfig config,
      LedgerTime time,
      RateLimiter rateLimiter) {
    Jdbc jdbc = new Jdbc(dataSource, readers);
    this.dataSource = dataSource;
    this.readers = readers;
    this.rateLimiter = rateLimiter;
    this.writes = new GroupCommit(jdbc, time.wireTicker());
    this.remembered = new RememberedDevices(jdbc, config, time.ticker());
    this.reservations = new Reservations(jdbc, writes, remembered, config, time.clock());
    this.usageLog = new UsageLog(writes, jdbc);
    this.webhookSecrets = new JdbcWebhookSecrets(jdbc, time.clock());
    this.admin = new JdbcDeviceAdmin(jdbc, time.clock(), config.trialMillis(), webhookSecrets);
    this.report = new JdbcUsageReport(jdbc);
    this.rollUp = new UsageRollUp(jdbc, time.clock(), config.usageRetention());
    this.uploads = new JdbcUploadRegistry(jdbc);
    this.jobs = new JobStore(jdbc);
    this.webhooks = new WebhookOutbox(jdbc);
    this.database = String.valueOf(LedgerConfig.redactedUrl(config.effectiveJdbcUrl()));
  }

  static JdbcLedger open(LedgerConfig config, LedgerTime time, RateLimiter rateLimiter) {
    HikariDataSource dataSource = LedgerDatabase.open(config);
    HikariDataSource readers = null;
    try {
      readers = LedgerDatabase.openReaders(config, dataSource);
      JdbcLedger ledger = new JdbcLedger(dataSource, readers, config, time, rateLimiter);
      ledger.admin.refuseEnrolled(config.staticTokens().keySet());
      config.staticTokens().keySet().forEach(ledger.admin::addConfigured);
      ledger.reservations.dropHoldsOfEarlierRun();
      return ledger;
    } catch (RuntimeException e) {
      if (readers != null && readers != dataSource) {
        readers.close();
      }
      dataSource.close();
      throw e;
    }
  }

  @Override
  public Optional<Device> authenticate(String token) {
    return remembered.authenticate(token);
  }

  @Override
  public Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline) {
    return reservations.reserve(device, workKey, audioMillis, deadline);
  }

  @Override
  public Charge commit(Reservation.Granted reservation, long audioMillis) {
    return reservations.commit(reservation, audioMillis);
  }

  @Override
  public CompletionStage<Charge> commitSoon(Reservation.Granted reservation, long audioMillis) {
    return reservations.canChargeWithNextBatch(reservation)
        ? reservations.chargeWithNextBatch(reservation, audioMillis)
        : DurableLedger.super.commitSoon(reservation, audioMillis);
  }

  @Override
  public void release(Reservation.Granted reservation) {
    reservations.release(reservation);
  }

  @Override
  public void record(UsageRecord usage) {
    usageLog.record(usage);
  }

  @Override
  public RateDecision admit(Device device) {
    return rateLimiter.admit(device);
  }

  @Override
  public Readiness readiness() {
    try (Connection c = dataSource.getConnection()) {
      return c.isValid(2)
          ? Readiness.ok()
          : Readiness.down("ledger database " + database + " not answering");
    } catch (SQLException e) {
      return Readiness.down("ledger database " + database + " unreachable: " + e.getMessage());
    }
  }

  @Override
  public Enrollment add(Device device) {
    remembered.forget();
    return admin.add(device);
  }

  @Override
  public List<DeviceInfo> devices() {
    // Charges of devices without a quota ride in the next batch: the operator's list (the
    // dashboard, the admin API) shows them written, as the usage reports do.
    flushWrites();
    return admin.devices();
  }

  @Override
  public boolean revoke(String name) {
    boolean revoked = admin.revoke(name);
    remembered.forget();
    return revoked;
  }

  @Override
  public boolean setQuota(String name, long seconds) {
    boolean set = admin.setQuota(name, seconds);
    remembered.forget();
    return set;
  }

  @Override
  public Optional<String> rotateWebhookSecret(String name) {
    return admin.rotateWebhookSecret(name);
  }

  @Override
  public List<String> webhookSecrets(String device) {
    return webhookSecrets.signing(device);
  }

  @Override
  public List<DeviceUsage> usage(UsageQuery query) {
    flushWrites();
    return report.usage(query);
  }

  @Override
  public List<UsageBucket> usageOverTime(UsageSeriesQuery query) {
    flushWrites();
    return report.usageOverTime(query);
  }

  @Override
  public JobStore jobs() {
    return jobs;
  }

  @Override
  public WebhookOutbox webhookOutbox() {
    return webhooks;
  }

  @Override
  public UploadRegistry uploadRegistry() {
    return uploads;
  }

  @Override
  public void flushWrites() {
    usageLog.flush();
  }

  @Override
  public RolledUp rollUpUsage() {
    flushWrites();
    return rollUp.run();
  }

  @Override
  public void close() {
    writes.close();
    if (readers != dataSource) {
      readers.close();
    }
    dataSource.close();
  }
}
