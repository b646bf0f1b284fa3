package dev.bolo.server.ledger;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@link UsageReport} computed by one grouped query over the usage log. */
final class JdbcUsageReport implements UsageReport {

  private final Jdbc jdbc;

  JdbcUsageReport(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public List<DeviceUsage> usage(UsageQuery query) {
    String device = query.device();
    Instant since = query.since();
    // Charged: what the ledger charged, one row per charged work, so the report agrees with the
    // devices' charge exactly. Saved: successful replays, which the de-duplication answered
    // without charging or calling the engine.
    StringBuilder sql =
        new StringBuilder(
            "SELECT device_name, COUNT(*), COUNT(DISTINCT CASE WHEN outcome = 'ok' THEN work_key END),"
                + " SUM(CASE WHEN replayed = 1 THEN 1 ELSE 0 END),"
                + " (SELECT COALESCE(SUM(w.audio_ms), 0) FROM work_charges w"
                + " WHERE w.device_name = u.device_name"
                + (since != null ? " AND w.charged_at >= ?" : "")
                + "),"
                + " SUM(CASE WHEN replayed = 1 AND outcome = 'ok' THEN audio_ms ELSE 0 END)"
                + " FROM usage_log u WHERE 1 = 1");
    if (device != null) {
      sql.append(" AND device_name = ?");
    }
    if (since != null) {
      sql.append(" AND answered_at >= ?");
    }
    sql.append(" GROUP BY device_name ORDER BY device_name");
    return jdbc.autoCommit(
        "summarise usage",
        c -> {
          List<DeviceUsage> rows = new ArrayList<>();
          try (PreparedStatement s = c.prepareStatement(sql.toString())) {
            int index = 1;
            if (since != null) {
              s.setLong(index++, since.toEpochMilli());
            }
            if (device != null) {
              s.setString(index++, device);
            }
            if (since != null) {
              s.setLong(index, since.toEpochMilli());
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
