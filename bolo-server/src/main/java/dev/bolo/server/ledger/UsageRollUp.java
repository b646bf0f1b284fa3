package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Moves usage log rows and charges older than the retention into per-device daily totals ({@code
 * usage_daily}), one UTC day at a time, the devices of a day in slices of at most {@link
 * #ROWS_PER_BATCH} rows (a single device's day may exceed it: a day of one device is never split,
 * since its distinct notes can only be counted whole).
 *
 * <p>Each slice is one transaction: its totals are added and its rows deleted together, so a crash
 * anywhere leaves every row either in the log or in the totals, never both and never neither. A
 * second run finds only what the first left, so running twice equals running once. Every slice
 * first locks the one {@code usage_rollup} row, so that roll-ups of several gateway instances on
 * one PostgreSQL database take turns, and each then reads what the other committed (SQLite's
 * IMMEDIATE transactions already take turns).
 *
 * <p>Thread safe: each run uses its own connections.
 */
final class UsageRollUp {

  /**
   * Rows (usage and charges) moved per transaction. While one runs it holds SQLite's write lock and
   * the gateway's one SQLite connection, so requests wait for it: measured on two cores with a
   * 1,000,000-row log, about 0.12 ms per row moved, so a slice of this size holds them for a
   * quarter of a second or less, once per day that passes the retention.
   */
  static final int ROWS_PER_BATCH = 2_000;

  static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

  /** Called inside each slice's transaction after its totals are written, before its rows go. */
  @FunctionalInterface
  interface SliceHook {
    void totalsWritten(long utcDay, String firstDevice, String lastDevice);

    SliceHook NONE = (day, first, last) -> {};
  }

  /** The devices of one day, from {@code first} to {@code last} in the database's order. */
  private record Slice(long utcDay, String first, String last) {}

  private final Jdbc jdbc;
  private final Clock clock;
  private final Duration retention;
  private final int rowsPerBatch;
  private final SliceHook hook;

  UsageRollUp(Jdbc jdbc, Clock clock, Duration retention) {
    this(jdbc, clock, retention, ROWS_PER_BATCH, SliceHook.NONE);
  }

  UsageRollUp(Jdbc jdbc, Clock clock, Duration retention, int rowsPerBatch, SliceHook hook) {
    if (rowsPerBatch < 1) {
      throw new IllegalArgumentException("rowsPerBatch must be >= 1: " + rowsPerBatch);
    }
    this.jdbc = jdbc;
    this.clock = clock;
    this.retention = retention;
    this.rowsPerBatch = rowsPerBatch;
    this.hook = hook;
  }

  /**
   * Rolls up every day that ended before the retention began: a day is rolled up whole or not at
   * all, so each day is either in the log or in the totals. Stops between slices when the thread is
   * interrupted.
   */
  RolledUp run() {
    long before = cutoff();
    long usageRows = 0;
    long charges = 0;
    int batches = 0;
    OptionalLong oldest;
    long dayFoundEmpty = Long.MIN_VALUE;
    while ((oldest = oldestDay()).isPresent() && oldest.getAsLong() * DAY_MILLIS < before) {
      long day = oldest.getAsLong();
      long movedToday = 0;
      for (Slice slice : slices(day)) {
        if (Thread.currentThread().isInterrupted()) {
          return new RolledUp(usageRows, charges, batches, false);
        }
        Moved moved = roll(slice);
        usageRows += moved.usageRows();
        charges += moved.charges();
        movedToday += moved.usageRows() + moved.charges();
        batches++;
      }
      // Another instance may have rolled the day up meanwhile; but a day still found after a pass
      // that moved none of it would be found for ever.
      if (movedToday == 0 && day == dayFoundEmpty) {
        throw new IllegalStateException(
            "usage roll-up cannot move the rows of UTC day " + day + "; stopped");
      }
      dayFoundEmpty = movedToday == 0 ? day : Long.MIN_VALUE;
    }
    markRolledBefore(before);
    return new RolledUp(usageRows, charges, batches, true);
  }

  /** The UTC midnight at or before now minus the retention: the days before it are rolled up. */
  long cutoff() {
    long oldestKept = clock.millis() - retention.toMillis();
    return Math.floorDiv(oldestKept, DAY_MILLIS) * DAY_MILLIS;
  }

  private OptionalLong oldestDay() {
    return jdbc.autoCommit(
        "find the oldest usage",
        c -> {
          try (PreparedStatement s =
                  c.prepareStatement(
                      "SELECT MIN(t) FROM (SELECT MIN(answered_at) AS t FROM usage_log"
                          + " UNION ALL SELECT MIN(charged_at) FROM work_charges) oldest");
              ResultSet r = s.executeQuery()) {
            r.next();
            long oldest = r.getLong(1);
            return r.wasNull()
                ? OptionalLong.empty()
                : OptionalLong.of(Math.floorDiv(oldest, DAY_MILLIS));
          }
        });
  }

  /** The day's devices in order, cut into runs of at most {@link #rowsPerBatch} rows. */
  private List<Slice> slices(long day) {
    long start = day * DAY_MILLIS;
    long end = start + DAY_MILLIS;
    return jdbc.autoCommit(
        "list the devices of a day",
        c -> {
          List<Slice> slices = new ArrayList<>();
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT device_name, SUM(n) FROM ("
                      + "SELECT device_name, COUNT(*) AS n FROM usage_log"
                      + " WHERE answered_at >= ? AND answered_at < ? GROUP BY device_name"
                      + " UNION ALL SELECT device_name, COUNT(*) FROM work_charges"
                      + " WHERE charged_at >= ? AND charged_at < ? GROUP BY device_name"
                      + ") day_rows GROUP BY device_name ORDER BY device_name")) {
            s.setLong(1, start);
            s.setLong(2, end);
            s.setLong(3, start);
            s.setLong(4, end);
            try (ResultSet r = s.executeQuery()) {
              String first = null;
              String last = null;
              long rows = 0;
              while (r.next()) {
                String device = r.getString(1);
                long n = r.getLong(2);
                if (first != null && last != null && rows + n > rowsPerBatch) {
                  slices.add(new Slice(day, first, last));
                  first = null;
                  rows = 0;
                }
                if (first == null) {
                  first = device;
                }
                last = device;
                rows += n;
              }
              if (first != null && last != null) {
                slices.add(new Slice(day, first, last));
              }
            }
          }
          return slices;
        });
  }

  private record Moved(long usageRows, long charges) {}

  /** Adds one slice's totals and deletes its rows, in one transaction. */
  private Moved roll(Slice slice) {
    long start = slice.utcDay() * DAY_MILLIS;
    long end = start + DAY_MILLIS;
    return jdbc.inTransaction(
        "roll up usage",
        c -> {
          jdbc.update(c, "UPDATE usage_rollup SET rolled_before = rolled_before WHERE id = 1");
          for (Totals totals : totals(c, slice, start, end)) {
            addTotals(c, slice.utcDay(), totals);
          }
          hook.totalsWritten(slice.utcDay(), slice.first(), slice.last());
          int usageRows =
              jdbc.update(
                  c,
                  "DELETE FROM usage_log WHERE answered_at >= ? AND answered_at < ?"
                      + " AND device_name >= ? AND device_name <= ?",
                  start,
                  end,
                  slice.first(),
                  slice.last());
          int charges =
              jdbc.update(
                  c,
                  "DELETE FROM work_charges WHERE charged_at >= ? AND charged_at < ?"
                      + " AND device_name >= ? AND device_name <= ?",
                  start,
                  end,
                  slice.first(),
                  slice.last());
          return new Moved(usageRows, charges);
        });
  }

  private record Totals(
      String device,
      long requests,
      long uniqueNotes,
      long replays,
      long charged,
      long saved,
      long joined,
      long failed) {}

  /**
   * The slice's totals per device, counted as {@link JdbcUsageReport} counts the log. A note counts
   * as unique on this day only when no later day answered it too: it counts on its last day.
   */
  private static List<Totals> totals(Connection c, Slice slice, long start, long end)
      throws SQLException {
    String inSlice = " >= ? AND %s < ? AND device_name >= ? AND device_name <= ?";
    String usage = "answered_at" + inSlice.formatted("answered_at");
    String charged = "charged_at" + inSlice.formatted("charged_at");
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT device_name, SUM(requests), SUM(notes), SUM(replays), SUM(charged),"
                + " SUM(saved), SUM(joined), SUM(failed) FROM ("
                + "SELECT device_name, COUNT(*) AS requests, 0 AS notes,"
                + " SUM(CASE WHEN replayed = 1 THEN 1 ELSE 0 END) AS replays, 0 AS charged,"
                + " SUM(CASE WHEN replayed = 1 AND outcome = 'ok' THEN audio_ms ELSE 0 END) AS saved,"
                + " SUM(CASE WHEN replayed = 1 AND joined = 1 THEN 1 ELSE 0 END) AS joined,"
                + " SUM(CASE WHEN replayed = 0 AND outcome <> 'ok' THEN 1 ELSE 0 END) AS failed"
                + " FROM usage_log WHERE "
                + usage
                + " GROUP BY device_name"
                + " UNION ALL SELECT k.device_name, 0, COUNT(*), 0, 0, 0, 0, 0 FROM"
                + " (SELECT DISTINCT device_name, work_key FROM usage_log WHERE outcome = 'ok'"
                + " AND "
                + usage
                + ") k WHERE NOT EXISTS (SELECT 1 FROM usage_log later"
                + " WHERE later.device_name = k.device_name AND later.work_key = k.work_key"
                + " AND later.outcome = 'ok' AND later.answered_at >= ?)"
                + " GROUP BY k.device_name"
                + " UNION ALL SELECT device_name, 0, 0, 0, SUM(audio_ms), 0, 0, 0 FROM work_charges"
                + " WHERE "
                + charged
                + " GROUP BY device_name"
                + ") slice_rows GROUP BY device_name")) {
      int i = 1;
      for (int part = 0; part < 3; part++) {
        s.setLong(i++, start);
        s.setLong(i++, end);
        s.setString(i++, slice.first());
        s.setString(i++, slice.last());
        if (part == 1) {
          s.setLong(i++, end);
        }
      }
      List<Totals> totals = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          totals.add(
              new Totals(
                  r.getString(1),
                  r.getLong(2),
                  r.getLong(3),
                  r.getLong(4),
                  r.getLong(5),
                  r.getLong(6),
                  r.getLong(7),
                  r.getLong(8)));
        }
      }
      return totals;
    }
  }

  /**
   * Adds to the device's day. The day is normally new; it exists already only when rows of an
   * already rolled-up day arrived late (a clock set back), and then the counts add up.
   */
  private void addTotals(Connection c, long utcDay, Totals t) throws SQLException {
    jdbc.update(
        c,
        "INSERT INTO usage_daily"
            + " (device_name, utc_day, requests, unique_notes, replays, charged_ms, saved_ms,"
            + " joined_replays, failed)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (device_name, utc_day) DO UPDATE SET"
            + " requests = usage_daily.requests + excluded.requests,"
            + " unique_notes = usage_daily.unique_notes + excluded.unique_notes,"
            + " replays = usage_daily.replays + excluded.replays,"
            + " charged_ms = usage_daily.charged_ms + excluded.charged_ms,"
            + " saved_ms = usage_daily.saved_ms + excluded.saved_ms,"
            + " joined_replays = usage_daily.joined_replays + excluded.joined_replays,"
            + " failed = usage_daily.failed + excluded.failed",
        t.device(),
        utcDay,
        t.requests(),
        t.uniqueNotes(),
        t.replays(),
        t.charged(),
        t.saved(),
        t.joined(),
        t.failed());
  }

  private void markRolledBefore(long before) {
    jdbc.autoCommit(
        "record the roll-up",
        c ->
            jdbc.update(
                c,
                "UPDATE usage_rollup SET rolled_before = ? WHERE id = 1 AND rolled_before < ?",
                before,
                before));
  }
}
