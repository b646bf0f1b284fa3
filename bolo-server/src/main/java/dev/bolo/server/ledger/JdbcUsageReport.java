package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link UsageReport} computed by one query over the usage log, the charge log and the daily totals
 * that {@link UsageRollUp} moved old rows into. One statement, so a roll-up committing meanwhile is
 * seen either wholly or not at all.
 *
 * <p>A rolled-up day counts as if all its requests were answered at 00:00 UTC: it is in the report
 * when that instant is at or after {@code since}. For a {@code since} at a UTC midnight (and for
 * all time) the figures are exactly those the log gave before the roll-up.
 */
final class JdbcUsageReport implements UsageReport {

  private final Jdbc jdbc;

  JdbcUsageReport(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public List<DeviceUsage> usage(UsageQuery query) {
    String device = query.device();
    Instant since = query.since();
    String forDevice = device != null ? " AND device_name = ?" : "";
    // Charged: what the ledger charged, one row per charged work, so the report agrees with the
    // devices' charge exactly. Saved: successful replays, which the de-duplication answered
    // without charging or calling the engine. Failed: requests whose own work ended in an error;
    // with the replays and those transcribed by their own work, every request is counted once.
    // Unique notes: the distinct notes still in the log, plus those of rolled-up days that were not
    // answered again on a later day.
    String sql =
        "SELECT device_name, SUM(requests), SUM(notes), SUM(replays), SUM(failed),"
            + " SUM(charged), SUM(saved)"
            + " FROM (SELECT device_name, COUNT(*) AS requests,"
            + " COUNT(DISTINCT CASE WHEN outcome = 'ok' THEN work_key END) AS notes,"
            + " SUM(CASE WHEN replayed = 1 THEN 1 ELSE 0 END) AS replays,"
            + " SUM(CASE WHEN replayed = 0 AND outcome <> 'ok' THEN 1 ELSE 0 END) AS failed,"
            + " 0 AS charged,"
            + " SUM(CASE WHEN replayed = 1 AND outcome = 'ok' THEN audio_ms ELSE 0 END) AS saved"
            + " FROM usage_log WHERE 1 = 1"
            + forDevice
            + (since != null ? " AND answered_at >= ?" : "")
            + " GROUP BY device_name"
            + " UNION ALL SELECT device_name, 0, 0, 0, 0, SUM(audio_ms), 0 FROM work_charges"
            + " WHERE 1 = 1"
            + forDevice
            + (since != null ? " AND charged_at >= ?" : "")
            + " GROUP BY device_name"
            + " UNION ALL SELECT device_name, requests, unique_notes, replays, failed, charged_ms,"
            + " saved_ms FROM usage_daily WHERE 1 = 1"
            + forDevice
            + (since != null ? " AND utc_day >= ?" : "")
            + ") usage_rows GROUP BY device_name HAVING SUM(requests) > 0 ORDER BY device_name";
    return jdbc.autoCommit(
        "summarise usage",
        c -> {
          List<DeviceUsage> rows = new ArrayList<>();
          try (PreparedStatement s = c.prepareStatement(sql)) {
            int index = 1;
            for (int part = 0; part < 3; part++) {
              if (device != null) {
                s.setString(index++, device);
              }
              if (since != null) {
                s.setLong(
                    index++,
                    part < 2
                        ? since.toEpochMilli()
                        // the first day whose midnight is at or after since
                        : Math.ceilDiv(since.toEpochMilli(), UsageRollUp.DAY_MILLIS));
              }
            }
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                rows.add(
                    new DeviceUsage(
                        r.getString(1),
                        r.getLong(2),
                        r.getLong(3),
                        r.getLong(4),
                        r.getLong(5),
                        r.getLong(6),
                        r.getLong(7)));
              }
            }
          }
          return rows;
        });
  }

  /**
   * The usage log, the charge log and the daily totals, each summed per interval; one transaction
   * would not make them agree better, since the log is written in batches after the answers.
   * Interval numbers are {@code (t - from) / width} in integer arithmetic, which both databases
   * floor for the non-negative differences the range allows.
   */
  @Override
  public List<UsageBucket> usageOverTime(UsageSeriesQuery query) {
    long from = query.from().toEpochMilli();
    long width = query.width().toMillis();
    long to = query.to().toEpochMilli();
    String forDevice = query.device() != null ? " AND device_name = ?" : "";
    String log =
        "SELECT bucket, COUNT(*),"
            + " COUNT(DISTINCT CASE WHEN outcome = 'ok' THEN work_key END),"
            + " SUM(CASE WHEN replayed = 1 AND joined = 1 THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN replayed = 1 AND joined = 0 THEN 1 ELSE 0 END),"
            + " 0,"
            + " SUM(CASE WHEN replayed = 1 AND outcome = 'ok' THEN audio_ms ELSE 0 END)"
            + " FROM (SELECT (answered_at - ?) / ? AS bucket, outcome, work_key, replayed, joined,"
            + " audio_ms FROM usage_log WHERE answered_at >= ? AND answered_at < ?"
            + forDevice
            + ") usage_rows GROUP BY bucket";
    String charges =
        "SELECT bucket, 0, 0, 0, 0, SUM(audio_ms), 0"
            + " FROM (SELECT (charged_at - ?) / ? AS bucket, audio_ms FROM work_charges"
            + " WHERE charged_at >= ? AND charged_at < ?"
            + forDevice
            + ") charge_rows GROUP BY bucket";
    String days =
        "SELECT bucket, SUM(requests), SUM(unique_notes), SUM(joined_replays),"
            + " SUM(replays - joined_replays), SUM(charged_ms), SUM(saved_ms)"
            + " FROM (SELECT (utc_day * "
            + UsageRollUp.DAY_MILLIS
            + " - ?) / ? AS bucket, requests, unique_notes, joined_replays, replays, charged_ms,"
            + " saved_ms FROM usage_daily WHERE utc_day * "
            + UsageRollUp.DAY_MILLIS
            + " >= ? AND utc_day * "
            + UsageRollUp.DAY_MILLIS
            + " < ?"
            + forDevice
            + ") day_rows GROUP BY bucket";
    return jdbc.autoCommit(
        "chart usage",
        c -> {
          UsageBucket[] buckets = new UsageBucket[query.buckets()];
          for (int i = 0; i < buckets.length; i++) {
            buckets[i] = UsageBucket.empty(query.from().plus(query.width().multipliedBy(i)));
          }
          for (String sql : List.of(log, charges, days)) {
            addBuckets(c, sql, new long[] {from, width, from, to}, query.device(), buckets);
          }
          return List.of(buckets);
        });
  }

  private static void addBuckets(
      Connection c, String sql, long[] range, @Nullable String device, UsageBucket[] buckets)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      int index = 1;
      for (long value : range) {
        s.setLong(index++, value);
      }
      if (device != null) {
        s.setString(index, device);
      }
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          int bucket = (int) r.getLong(1);
          // The range's bounds keep every row inside it; a row outside would be a bug, not data.
          if (bucket < 0 || bucket >= buckets.length) {
            throw new IllegalStateException("usage row outside the range: bucket " + bucket);
          }
          buckets[bucket] =
              buckets[bucket].plus(
                  new UsageBucket(
                      buckets[bucket].start(),
                      r.getLong(2),
                      r.getLong(3),
                      r.getLong(4),
                      r.getLong(5),
                      r.getLong(6),
                      r.getLong(7)));
        }
      }
    }
  }
}
