package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quota reserved, committed and released in the ledger's {@code quota_holds}, {@code work_charges}
 * and {@code devices} tables: the quota half of {@link Ledger}. Thread safe.
 *
 * <p>A device without a limit reserves nothing: its work is charged when it succeeds, one database
 * transaction per unique note. On SQLite, the charges of concurrent requests share one transaction
 * with each other and with usage rows ({@link GroupCommit}). Quota is reserved under the device's
 * {@link DeviceLock}: concurrent reservations for one device, from any number of gateway instances,
 * are decided one after another against committed state. Committing deletes the hold and logs the
 * charge of its work in one transaction, so a piece of work is charged at most once per device
 * within the charge window, whichever instance or run commits it.
 */
final class Reservations {

  private static final Logger log = LoggerFactory.getLogger(Reservations.class);

  /** A charge waits this long for its batch to commit before the outbox takes it over. */
  private static final Duration CHARGE_COMMIT_TIMEOUT = Duration.ofSeconds(10);

  /** Ids of holds that were never written: work of a device without a limit. */
  private static final String UNHELD = "unheld-";

  /** Longest a phone is told to wait for held seconds: a resend inside the SDK's window. */
  private static final long MAX_HELD_RETRY_MILLIS = 30_000;

  private final Jdbc jdbc;
  private final GroupCommit writes;
  private final RememberedDevices devices;
  private final Clock clock;
  private final long trialMillis;
  private final long chargeWindowMillis;
  private final @Nullable String instanceId;
  private final boolean groupCharges;

  Reservations(
      Jdbc jdbc, GroupCommit writes, RememberedDevices devices, LedgerConfig config, Clock clock) {
    this.jdbc = jdbc;
    this.writes = writes;
    this.devices = devices;
    this.clock = clock;
    this.trialMillis = config.trialMillis();
    this.chargeWindowMillis = config.chargeWindow().toMillis();
    this.instanceId = config.instanceId();
    this.groupCharges = config.effectiveJdbcUrl().startsWith("jdbc:sqlite:");
  }

  /**
   * This instance has just started, so none of the holds carrying its id belongs to live work: they
   * were left by its previous run, killed before it could commit or release them.
   */
  void dropHoldsOfEarlierRun() {
    if (instanceId == null) {
      return;
    }
    int dropped =
        jdbc.autoCommit(
            "drop stale holds",
            c -> jdbc.update(c, "DELETE FROM quota_holds WHERE instance_id = ?", instanceId));
    if (dropped > 0) {
      log.warn("dropped {} quota holds left by this instance's previous run", dropped);
    }
  }

  /** As {@link Ledger#reserve}. */
  Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline) {
    if (audioMillis < 0) {
      throw new IllegalArgumentException("audioMillis must be >= 0: " + audioMillis);
    }
    if (devices.limitMillis(device.name()) <= 0) {
      // No limit to enforce: nothing to hold; the charge is logged when the work succeeds.
      return new Reservation.Granted(
          UNHELD + UUID.randomUUID(), device.name(), workKey, audioMillis);
    }
    long now = clock.millis();
    return jdbc.inTransaction(
        "reserve quota",
        c -> {
          DeviceLock.lock(jdbc, c, device.name());
          jdbc.update(
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
          String id = RowIds.next(now);
          jdbc.update(
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

  /** As {@link Ledger#commit}. */
  Charge commit(Reservation.Granted reservation, long audioMillis) {
    GroupCommit.Write<Charge> write = chargeWrite(reservation, audioMillis);
    return logged(
        reservation,
        groupCharges
            ? writes.await("commit quota", write, CHARGE_COMMIT_TIMEOUT)
            : jdbc.inTransaction("commit quota", write::run));
  }

  /**
   * Whether the charge of {@code reservation} may be written with the next batch of writes (within
   * {@link GroupCommit#LINGER}, like usage rows) rather than before {@link Ledger#commitSoon}
   * returns: work of a device without a quota, on SQLite. Nothing is enforced against such a
   * device's total, so nobody needs to wait for the write, and the commit a waiting charge would
   * cost every note is the ledger writer's largest cost. A charge against a quota is written at
   * once.
   */
  boolean canChargeWithNextBatch(Reservation.Granted reservation) {
    return groupCharges && reservation.id().startsWith(UNHELD);
  }

  /** Charges like {@link #commit}, with the next batch of writes. */
  CompletionStage<Charge> chargeWithNextBatch(Reservation.Granted reservation, long audioMillis) {
    return writes
        .submit("commit usage", chargeWrite(reservation, audioMillis))
        .thenApply(charge -> logged(reservation, charge));
  }

  /** As {@link Ledger#release}. */
  void release(Reservation.Granted reservation) {
    if (reservation.id().startsWith(UNHELD)) {
      return;
    }
    jdbc.autoCommit(
        "release quota",
        c -> jdbc.update(c, "DELETE FROM quota_holds WHERE id = ?", reservation.id()));
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
        DeviceLock.lock(jdbc, c, reservation.device());
      }
      if (!reservation.id().startsWith(UNHELD)) {
        jdbc.update(c, "DELETE FROM quota_holds WHERE id = ?", reservation.id());
      }
      // Charged within the window already: the insert adds nothing (one statement for the
      // check and the insert, under the lock above).
      if (jdbc.update(
              c,
              "INSERT INTO work_charges (id, device_name, work_key, audio_ms, charged_at)"
                  + " SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM work_charges"
                  + " WHERE device_name = ? AND work_key = ? AND charged_at > ?)",
              RowIds.next(now),
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
      if (jdbc.update(
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
}
