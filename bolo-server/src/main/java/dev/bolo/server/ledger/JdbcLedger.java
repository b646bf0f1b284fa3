package dev.bolo.server.ledger;

import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.zaxxer.hikari.HikariDataSource;
import dev.bolo.server.health.Readiness;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DurableLedger} on PostgreSQL or SQLite.
 *
 * <p>Authentication and each device's limit are answered from memory for at most {@link
 * #REMEMBERED} (one indexed lookup by token hash when not), so a revocation or a quota change made
 * by another process holds within a second, and one made through this ledger at once. A device
 * without a limit reserves nothing: its work is charged when it succeeds, one database transaction
 * per unique note. On SQLite, charges and usage rows of concurrent requests share one transaction
 * ({@link GroupCommit}); usage rows never hold a request up.
 *
 * <p>Quota is reserved under a lock on the device's row, taken first by every transaction that
 * changes a device's holds or charge: concurrent reservations for one device, from any number of
 * gateway instances, are decided one after another against committed state. Committing deletes the
 * hold and logs the charge of its work in one transaction, so a piece of work is charged at most
 * once per device within the charge window, whichever instance or run commits it.
 */
final class JdbcLedger implements DurableLedger {

  private static final Logger log = LoggerFactory.getLogger(JdbcLedger.class);

  private final HikariDataSource dataSource;
  private final Jdbc jdbc;
  private final Clock clock;
  private final long trialMillis;
  private final long chargeWindowMillis;
  private final @Nullable String instanceId;
  private final Map<String, String> staticDevicesByTokenHash;
  private final RateLimiter rateLimiter;
  private final JdbcDeviceAdmin admin;
  private final JdbcUsageReport report;
  private final LoadingCache<String, Optional<Device>> devicesByTokenHash;
  private final LoadingCache<String, Long> limitsByDevice;
  private final GroupCommit writes;
  private final boolean groupCharges;

  /** How long an answer about a token or a device's limit is reused from memory. */
  static final Duration REMEMBERED = Duration.ofSeconds(1);

  /** A charge waits this long for its batch to commit before the outbox takes it over. */
  private static final Duration CHARGE_COMMIT_TIMEOUT = Duration.ofSeconds(10);

  /** Ids of holds that were never written: work of a device without a limit. */
  private static final String UNHELD = "unheld-";

  private final UsageRollUp rollUp;
  private final UploadRegistry uploads;

  private JdbcLedger(HikariDataSource dataSource, LedgerConfig config, RateLimiter rateLimiter) {
    this.dataSource = dataSource;
    this.jdbc = new Jdbc(dataSource);
    this.clock = config.clock();
    this.trialMillis = Math.multiplyExact(config.trialSeconds(), 1000L);
    this.chargeWindowMillis = config.chargeWindow().toMillis();
    this.instanceId = config.instanceId();
    Map<String, String> byHash = new HashMap<>();
    config.staticTokens().forEach((name, token) -> byHash.put(Tokens.hash(token), name));
    this.staticDevicesByTokenHash = Map.copyOf(byHash);
    this.rateLimiter = rateLimiter;
    this.admin = new JdbcDeviceAdmin(jdbc, clock, trialMillis);
    this.report = new JdbcUsageReport(jdbc);
    this.devicesByTokenHash = remembered(config, this::lookUpToken);
    this.limitsByDevice = remembered(config, this::lookUpLimit);
    this.writes = new GroupCommit(jdbc);
    this.groupCharges = config.effectiveJdbcUrl().startsWith("jdbc:sqlite:");
    this.rollUp = new UsageRollUp(jdbc, clock, config.usageRetention());
    this.uploads = new JdbcUploadRegistry(jdbc);
  }

  static JdbcLedger open(LedgerConfig config, RateLimiter rateLimiter) {
    HikariDataSource dataSource = LedgerDatabase.open(config);
    try {
      JdbcLedger ledger = new JdbcLedger(dataSource, config, rateLimiter);
      ledger.admin.refuseEnrolled(config.staticTokens().keySet());
      config.staticTokens().keySet().forEach(ledger.admin::addConfigured);
      ledger.dropHoldsOfEarlierRun();
      return ledger;
    } catch (RuntimeException e) {
      dataSource.close();
      throw e;
    }
  }

  @Override
  public Optional<Device> authenticate(String token) {
    return devicesByTokenHash.get(Tokens.hash(token));
  }

  private Optional<Device> lookUpToken(String hash) {
    String configured = staticDevicesByTokenHash.get(hash);
    return jdbc.autoCommit(
        "authenticate",
        c -> {
          if (configured != null) {
            return queryName(
                c, "SELECT name FROM devices WHERE name = ? AND revoked_at IS NULL", configured);
          }
          return queryName(
              c, "SELECT name FROM devices WHERE token_hash = ? AND revoked_at IS NULL", hash);
        });
  }

  /** The device's limit in ms, 0 when it has none; a device that is gone has none to spend. */
  private Long lookUpLimit(String device) {
    return jdbc.autoCommit(
        "read limit",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("SELECT quota_ms FROM devices WHERE name = ?")) {
            s.setString(1, device);
            try (ResultSet r = s.executeQuery()) {
              if (!r.next()) {
                return 0L;
              }
              long override = r.getLong(1);
              return r.wasNull() ? trialMillis : override;
            }
          }
        });
  }

  /**
   * Answers by key from memory for at most {@link #REMEMBERED}, reloaded in the background after
   * half of it so requests seldom wait for the database.
   */
  private static <V> LoadingCache<String, V> remembered(
      LedgerConfig config, CacheLoader<String, V> lookUp) {
    return Caffeine.newBuilder()
        .maximumSize(100_000)
        .expireAfterWrite(REMEMBERED)
        .refreshAfterWrite(REMEMBERED.dividedBy(2))
        // The request that finds an entry stale reloads it itself, at once: queued on a busy
        // common pool, a reload could outlast the entry, and then every request waiting for the
        // same token would wait for the database together.
        .executor(Runnable::run)
        .ticker(config.ticker()::getAsLong)
        .build(lookUp);
  }

  /** Forgets what memory says about tokens and limits: this ledger has just changed them. */
  private void forgetRemembered() {
    devicesByTokenHash.invalidateAll();
    limitsByDevice.invalidateAll();
  }

  /**
   * This instance has just started, so none of the holds carrying its id belongs to live work: they
   * were left by its previous run, killed before it could commit or release them.
   */
  private void dropHoldsOfEarlierRun() {
    if (instanceId == null) {
      return;
    }
    int dropped =
        jdbc.autoCommit(
            "drop stale holds",
            c -> update(c, "DELETE FROM quota_holds WHERE instance_id = ?", instanceId));
    if (dropped > 0) {
      log.warn("dropped {} quota holds left by this instance's previous run", dropped);
    }
  }

  @Override
  public Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline) {
    if (audioMillis < 0) {
      throw new IllegalArgumentException("audioMillis must be >= 0: " + audioMillis);
    }
    if (limitsByDevice.get(device.name()) <= 0) {
      // No limit to enforce: nothing to hold; the charge is logged when the work succeeds.
      return new Reservation.Granted(
          UNHELD + UUID.randomUUID(), device.name(), workKey, audioMillis);
    }
    long now = clock.millis();
    return jdbc.inTransaction(
        "reserve quota",
        c -> {
          lockDevice(c, device.name());
          update(
              c,
              "DELETE FROM quota_holds WHERE device_name = ? AND expires_at <= ?",
              device.name(),
              now);
          // Work charged within the window will not be charged again: hold nothing for it.
          // So is work that another run (another instance, during a Redis outage) holds already:
          // only one of the runs can be charged for it.
          boolean charged =
              isCharged(c, device.name(), workKey, now) || isHeld(c, device.name(), workKey);
          long needed = charged ? 0 : audioMillis;
          long limit;
          long spent;
          long held;
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT quota_ms, charged_ms,"
                      + " (SELECT COALESCE(SUM(audio_ms), 0) FROM quota_holds WHERE device_name = ?)"
                      + " FROM devices WHERE name = ?")) {
            s.setString(1, device.name());
            s.setString(2, device.name());
            try (ResultSet r = s.executeQuery()) {
              r.next();
              long override = r.getLong(1);
              limit = r.wasNull() ? trialMillis : override;
              spent = r.getLong(2);
              held = r.getLong(3);
            }
          }
          // A device with nothing left is refused whatever the note measures: a note of 0 ms (or
          // one whose length could not be told) still costs a provider call.
          if (!charged && limit > 0 && (spent >= limit || spent + needed > limit)) {
            return new Reservation.Exhausted(Math.max(0, limit - spent - held));
          }
          if (!charged && limit > 0 && (spent + held >= limit || spent + held + needed > limit)) {
            return new Reservation.Held(untilEarliestHoldEnds(c, device.name(), now));
          }
          String id = RowIds.next();
          update(
              c,
              "INSERT INTO quota_holds"
                  + " (id, device_name, audio_ms, created_at, expires_at, instance_id, work_key)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?)",
              id,
              device.name(),
              needed,
              now,
              now + Math.max(1, deadline.toMillis()),
              instanceId,
              workKey);
          return new Reservation.Granted(id, device.name(), workKey, needed);
        });
  }

  @Override
  public Charge commit(Reservation.Granted reservation, long audioMillis) {
    GroupCommit.Write<Charge> write = chargeWrite(reservation, audioMillis);
    return logged(
        reservation,
        groupCharges
            ? writes.await("commit quota", write, CHARGE_COMMIT_TIMEOUT)
            : jdbc.inTransaction("commit quota", write::run));
  }

  /**
   * A device without a quota is charged with the next batch of writes (within {@link
   * GroupCommit#LINGER}, like its usage rows): nothing is enforced against its total, so nobody
   * needs to wait for the write, and the commit a waiting charge would cost every note is the
   * ledger writer's largest cost. A charge against a quota is written before this returns.
   */
  @Override
  public CompletionStage<Charge> commitSoon(Reservation.Granted reservation, long audioMillis) {
    if (!groupCharges || !reservation.id().startsWith(UNHELD)) {
      return DurableLedger.super.commitSoon(reservation, audioMillis);
    }
    return writes
        .submit("commit usage", chargeWrite(reservation, audioMillis))
        .thenApply(charge -> logged(reservation, charge));
  }

  private GroupCommit.Write<Charge> chargeWrite(Reservation.Granted reservation, long audioMillis) {
    if (audioMillis < 0) {
      throw new IllegalArgumentException("audioMillis must be >= 0: " + audioMillis);
    }
    long now = clock.millis();
    return c -> {
      // Every charge of this device runs under its lock, so the check below and the
      // insert cannot interleave with another instance's commit of the same work. SQLite's
      // IMMEDIATE transaction (the group commit's batch) holds the database's write lock
      // already, so there the device is only checked by the last update.
      if (!groupCharges) {
        lockDevice(c, reservation.device());
      }
      if (!reservation.id().startsWith(UNHELD)) {
        update(c, "DELETE FROM quota_holds WHERE id = ?", reservation.id());
      }
      // Charged within the window already: the insert adds nothing (one statement for the
      // check and the insert, under the lock above).
      if (update(
              c,
              "INSERT INTO work_charges (id, device_name, work_key, audio_ms, charged_at)"
                  + " SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM work_charges"
                  + " WHERE device_name = ? AND work_key = ? AND charged_at > ?)",
              RowIds.next(),
              reservation.device(),
              reservation.workKey(),
              audioMillis,
              now,
              reservation.device(),
              reservation.workKey(),
              now - chargeWindowMillis)
          == 0) {
        return Charge.ALREADY_CHARGED;
      }
      if (update(
              c,
              "UPDATE devices SET charged_ms = charged_ms + ? WHERE name = ?",
              audioMillis,
              reservation.device())
          == 0) {
        throw new IllegalArgumentException("no such device in the ledger: " + reservation.device());
      }
      return Charge.CHARGED;
    };
  }

  private static Charge logged(Reservation.Granted reservation, Charge charge) {
    if (charge == Charge.ALREADY_CHARGED) {
      log.info(
          "work {} of device {} was charged already; not charged again",
          reservation.workKey(),
          reservation.device());
    }
    return charge;
  }

  /** Longest a phone is told to wait for held seconds: a resend inside the SDK's window. */
  private static final long MAX_HELD_RETRY_MILLIS = 30_000;

  private static boolean isHeld(Connection c, String device, String workKey) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("SELECT 1 FROM quota_holds WHERE device_name = ? AND work_key = ?")) {
      s.setString(1, device);
      s.setString(2, workKey);
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    }
  }

  private static Duration untilEarliestHoldEnds(Connection c, String device, long now)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("SELECT MIN(expires_at) FROM quota_holds WHERE device_name = ?")) {
      s.setString(1, device);
      try (ResultSet r = s.executeQuery()) {
        long earliest = r.next() ? r.getLong(1) : now;
        return Duration.ofMillis(Math.max(1_000, Math.min(MAX_HELD_RETRY_MILLIS, earliest - now)));
      }
    }
  }

  private boolean isCharged(Connection c, String device, String workKey, long now)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT 1 FROM work_charges WHERE device_name = ? AND work_key = ? AND charged_at > ?")) {
      s.setString(1, device);
      s.setString(2, workKey);
      s.setLong(3, now - chargeWindowMillis);
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    }
  }

  @Override
  public void release(Reservation.Granted reservation) {
    if (reservation.id().startsWith(UNHELD)) {
      return;
    }
    jdbc.autoCommit(
        "release quota", c -> update(c, "DELETE FROM quota_holds WHERE id = ?", reservation.id()));
  }

  @Override
  public void record(UsageRecord usage) {
    // Off the request's path: the row joins the next batch; a failure is logged, not answered.
    writes
        .submit("record usage", c -> insertUsage(c, usage))
        .whenComplete(
            (rows, failure) -> {
              if (failure != null) {
                log.error("could not record usage: {}", failure.getMessage());
              }
            });
  }

  private static int insertUsage(Connection c, UsageRecord usage) throws SQLException {
    return update(
        c,
        "INSERT INTO usage_log (id, device_name, work_key, audio_sha256, audio_ms,"
            + " duration_measured, engine, outcome, replayed, joined, request_id, answered_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        RowIds.next(),
        usage.device(),
        usage.workKey(),
        usage.audioSha256(),
        usage.audioMillis(),
        usage.durationMeasured() ? 1 : 0,
        usage.engine(),
        usage.outcome(),
        usage.replayed() ? 1 : 0,
        usage.replay() == UsageRecord.Replay.JOINED ? 1 : 0,
        usage.requestId(),
        usage.at().toEpochMilli());
  }

  @Override
  public RateDecision admit(Device device) {
    return rateLimiter.admit(device);
  }

  @Override
  public Readiness readiness() {
    try (Connection c = dataSource.getConnection()) {
      return c.isValid(2) ? Readiness.ok() : Readiness.down("ledger database not answering");
    } catch (SQLException e) {
      return Readiness.down("ledger database unreachable: " + e.getMessage());
    }
  }

  @Override
  public Enrollment add(Device device) {
    forgetRemembered();
    return admin.add(device);
  }

  @Override
  public List<DeviceInfo> devices() {
    return admin.devices();
  }

  @Override
  public boolean revoke(String name) {
    boolean revoked = admin.revoke(name);
    forgetRemembered();
    return revoked;
  }

  @Override
  public boolean setQuota(String name, long seconds) {
    boolean set = admin.setQuota(name, seconds);
    forgetRemembered();
    return set;
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
  public UploadRegistry uploadRegistry() {
    return uploads;
  }

  @Override
  public void flushWrites() {
    writes.await("flush usage", c -> 0, CHARGE_COMMIT_TIMEOUT);
  }

  @Override
  public RolledUp rollUpUsage() {
    flushWrites();
    return rollUp.run();
  }

  @Override
  public void close() {
    writes.close();
    dataSource.close();
  }

  /**
   * Locks the device's row until the transaction ends (PostgreSQL: a row lock; SQLite: the
   * database's write lock, already held by an IMMEDIATE transaction). A no-op UPDATE, because
   * SQLite has no {@code SELECT ... FOR UPDATE}.
   */
  static void lockDevice(Connection c, String name) throws SQLException {
    if (update(c, "UPDATE devices SET charged_ms = charged_ms WHERE name = ?", name) == 0) {
      throw new IllegalArgumentException("no such device in the ledger: " + name);
    }
  }

  private static Optional<Device> queryName(Connection c, String sql, String parameter)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, parameter);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(new Device(r.getString(1))) : Optional.empty();
      }
    }
  }

  /** Runs an INSERT, UPDATE or DELETE binding Strings, Integers and Longs; returns rows changed. */
  static int update(Connection c, String sql, @Nullable Object... parameters) throws SQLException {
    PreparedStatement kept = KeptStatements.forUpdate(c, sql);
    if (kept != null) {
      return executeUpdate(kept, parameters);
    }
    try (PreparedStatement s = c.prepareStatement(sql)) {
      return executeUpdate(s, parameters);
    }
  }

  private static int executeUpdate(PreparedStatement s, @Nullable Object... parameters)
      throws SQLException {
    for (int i = 0; i < parameters.length; i++) {
      switch (parameters[i]) {
        case String text -> s.setString(i + 1, text);
        case Integer number -> s.setInt(i + 1, number);
        case Long number -> s.setLong(i + 1, number);
        case null -> s.setNull(i + 1, java.sql.Types.VARCHAR);
        default ->
            throw new IllegalArgumentException(
                "unsupported parameter type: " + parameters[i].getClass());
      }
    }
    return s.executeUpdate();
  }
}
