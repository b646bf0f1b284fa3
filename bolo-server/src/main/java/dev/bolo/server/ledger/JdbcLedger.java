package dev.bolo.server.ledger;

import com.zaxxer.hikari.HikariDataSource;
import dev.bolo.server.Readiness;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DurableLedger} on PostgreSQL or SQLite.
 *
 * <p>Every authentication reads the database (one indexed lookup by token hash), with no cache of
 * positive answers, so a revocation made by any process holds from the next request on.
 *
 * <p>Quota is reserved under a lock on the device's row, taken first by every transaction that
 * changes a device's holds or charge: concurrent reservations for one device, from any number of
 * gateway instances, are decided one after another against committed state. Committing deletes the
 * hold and adds its seconds to the charge in one transaction, so a hold is charged at most once.
 */
final class JdbcLedger implements DurableLedger {

  private static final Logger log = LoggerFactory.getLogger(JdbcLedger.class);

  private final HikariDataSource dataSource;
  private final Jdbc jdbc;
  private final Clock clock;
  private final long trialMillis;
  private final long holdTtlMillis;
  private final Map<String, String> staticDevicesByTokenHash;
  private final RateLimiter rateLimiter;
  private final JdbcDeviceAdmin admin;
  private final JdbcUsageReport report;

  private JdbcLedger(HikariDataSource dataSource, LedgerConfig config, RateLimiter rateLimiter) {
    this.dataSource = dataSource;
    this.jdbc = new Jdbc(dataSource);
    this.clock = config.clock();
    this.trialMillis = Math.multiplyExact(config.trialSeconds(), 1000L);
    this.holdTtlMillis = config.holdTtl().toMillis();
    Map<String, String> byHash = new HashMap<>();
    config.staticTokens().forEach((name, token) -> byHash.put(Tokens.hash(token), name));
    this.staticDevicesByTokenHash = Map.copyOf(byHash);
    this.rateLimiter = rateLimiter;
    this.admin = new JdbcDeviceAdmin(jdbc, clock, trialMillis);
    this.report = new JdbcUsageReport(jdbc);
  }

  static JdbcLedger open(LedgerConfig config, RateLimiter rateLimiter) {
    HikariDataSource dataSource = LedgerDatabase.open(config);
    try {
      JdbcLedger ledger = new JdbcLedger(dataSource, config, rateLimiter);
      config.staticTokens().keySet().forEach(ledger.admin::addConfigured);
      return ledger;
    } catch (RuntimeException e) {
      dataSource.close();
      throw e;
    }
  }

  @Override
  public Optional<Device> authenticate(String token) {
    String hash = Tokens.hash(token);
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

  @Override
  public Reservation reserve(Device device, long audioMillis) {
    if (audioMillis < 0) {
      throw new IllegalArgumentException("audioMillis must be >= 0: " + audioMillis);
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
          long limit;
          long charged;
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
              charged = r.getLong(2);
              held = r.getLong(3);
            }
          }
          // A device with nothing left is refused whatever the note measures: a note of 0 ms (or
          // one whose length could not be told) still costs a provider call.
          if (limit > 0 && (charged + held >= limit || charged + held + audioMillis > limit)) {
            return new Reservation.Exhausted(Math.max(0, limit - charged - held));
          }
          String id = UUID.randomUUID().toString();
          update(
              c,
              "INSERT INTO quota_holds (id, device_name, audio_ms, created_at, expires_at)"
                  + " VALUES (?, ?, ?, ?, ?)",
              id,
              device.name(),
              audioMillis,
              now,
              now + holdTtlMillis);
          return new Reservation.Granted(id, device.name(), audioMillis);
        });
  }

  @Override
  public void commit(Reservation.Granted reservation) {
    boolean charged =
        jdbc.inTransaction(
            "commit quota",
            c -> {
              lockDevice(c, reservation.device());
              long held;
              try (PreparedStatement s =
                  c.prepareStatement(
                      "SELECT audio_ms FROM quota_holds WHERE id = ? AND device_name = ?")) {
                s.setString(1, reservation.id());
                s.setString(2, reservation.device());
                try (ResultSet r = s.executeQuery()) {
                  if (!r.next()) {
                    return false;
                  }
                  held = r.getLong(1);
                }
              }
              update(c, "DELETE FROM quota_holds WHERE id = ?", reservation.id());
              update(
                  c,
                  "UPDATE devices SET charged_ms = charged_ms + ? WHERE name = ?",
                  held,
                  reservation.device());
              return true;
            });
    if (!charged) {
      // Committed or released before, or expired after its instance stalled past the hold TTL.
      log.warn(
          "quota hold {} of device {} is gone; not charged again",
          reservation.id(),
          reservation.device());
    }
  }

  @Override
  public void release(Reservation.Granted reservation) {
    jdbc.autoCommit(
        "release quota", c -> update(c, "DELETE FROM quota_holds WHERE id = ?", reservation.id()));
  }

  @Override
  public void record(UsageRecord usage) {
    jdbc.autoCommit(
        "record usage",
        c ->
            update(
                c,
                "INSERT INTO usage_log (id, device_name, work_key, audio_sha256, audio_ms,"
                    + " duration_measured, engine, outcome, replayed, request_id, answered_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                UUID.randomUUID().toString(),
                usage.device(),
                usage.workKey(),
                usage.audioSha256(),
                usage.audioMillis(),
                usage.durationMeasured() ? 1 : 0,
                usage.engine(),
                usage.outcome(),
                usage.replayed() ? 1 : 0,
                usage.requestId(),
                usage.at().toEpochMilli()));
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
    return admin.add(device);
  }

  @Override
  public List<DeviceInfo> devices() {
    return admin.devices();
  }

  @Override
  public boolean revoke(String name) {
    return admin.revoke(name);
  }

  @Override
  public boolean setQuota(String name, long seconds) {
    return admin.setQuota(name, seconds);
  }

  @Override
  public List<DeviceUsage> usage(UsageQuery query) {
    return report.usage(query);
  }

  @Override
  public void close() {
    dataSource.close();
  }

  /**
   * Locks the device's row until the transaction ends (PostgreSQL: a row lock; SQLite: the
   * database's write lock, already held by an IMMEDIATE transaction). A no-op UPDATE, because
   * SQLite has no {@code SELECT ... FOR UPDATE}.
   */
  private static void lockDevice(Connection c, String name) throws SQLException {
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
  static int update(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        switch (parameters[i]) {
          case String text -> s.setString(i + 1, text);
          case Integer number -> s.setInt(i + 1, number);
          case Long number -> s.setLong(i + 1, number);
          default ->
              throw new IllegalArgumentException(
                  "unsupported parameter type: " + parameters[i].getClass());
        }
      }
      return s.executeUpdate();
    }
  }
}
