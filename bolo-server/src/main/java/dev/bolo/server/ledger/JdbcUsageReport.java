package dev.bolo.server.ledger;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
    // without charging or calling the engine. Unique notes: the distinct notes still in the log,
    // plus those of rolled-up days that were not answered again on a later day.
    String sql =
        "SELECT device_name, SUM(requests), SUM(notes), SUM(replays), SUM(charged), SUM(saved)"
            + " FROM (SELECT device_name, COUNT(*) AS requests,"
            + " COUNT(DISTINCT CASE WHEN outcome = 'ok' THEN work_key END) AS notes,"
            + " SUM(CASE WHEN replayed = 1 THEN 1 ELSE 0 END) AS replays, 0 AS charged,"
            + " SUM(CASE WHEN replayed = 1 AND outcome = 'ok' THEN audio_ms ELSE 0 END) AS saved"
            + " FROM usage_log WHERE 1 = 1"
            + forDevice
            + (since != null ? " AND answered_at >= ?" : "")
            + " GROUP BY device_name"
            + " UNION ALL SELECT device_name, 0, 0, 0, SUM(audio_ms), 0 FROM work_charges"
            + " WHERE 1 = 1"
            + forDevice
            + (since != null ? " AND charged_at >= ?" : "")
            + " GROUP BY device_name"
            + " UNION ALL SELECT device_name, requests, unique_notes, replays, charged_ms, saved_ms"
            + " FROM usage_daily WHERE 1 = 1"
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
                        r.getLong(6)));
              }
            }
          }
          return rows;
        });
  }
}
