package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The {@code jobs} table's rows as {@link JobRecord}s, for {@link JobStore}. Stateless. */
final class JobRows {

  static final String COLUMNS =
      "id, device_name, status, fields, audio_sha256, audio_bytes, duration_ms,"
          + " claimed_duration_ms, idempotency_key, webhook_url, metadata, result, error,"
          + " created_at, finished_at, attempts, traceparent";

  private JobRows() {}

  static void insert(Connection c, JobRecord job) throws SQLException {
    bound(
        c,
        "INSERT INTO jobs ("
            + COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        job.id(),
        job.device(),
        job.status().name(),
        job.fields(),
        job.audioSha256(),
        job.audioBytes(),
        job.durationMs(),
        job.claimedDurationMs(),
        job.idempotencyKey(),
        job.webhookUrl(),
        job.metadata(),
        job.result(),
        job.error(),
        job.createdAt().toEpochMilli(),
        job.finishedAt() == null ? null : job.finishedAt().toEpochMilli(),
        job.attempts(),
        job.traceparent());
  }

  /**
   * Runs an INSERT or UPDATE whose parameters may be null numbers: bound without a type, which
   * PostgreSQL infers from the column (a null bound as text would not fit a BIGINT column).
   */
  static int bound(Connection c, String sql, @Nullable Object... parameters) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        if (parameters[i] == null) {
          s.setNull(i + 1, Types.NULL);
        } else {
          s.setObject(i + 1, parameters[i]);
        }
      }
      return s.executeUpdate();
    }
  }

  static List<JobRecord> query(Connection c, String where, Object... parameters)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM jobs " + where)) {
      for (int i = 0; i < parameters.length; i++) {
        s.setObject(i + 1, parameters[i]);
      }
      try (ResultSet r = s.executeQuery()) {
        List<JobRecord> jobs = new ArrayList<>();
        while (r.next()) {
          jobs.add(
              new JobRecord(
                  r.getString(1),
                  r.getString(2),
                  JobStatus.valueOf(r.getString(3)),
                  r.getString(4),
                  r.getString(5),
                  r.getLong(6),
                  nullableLong(r, 7),
                  nullableLong(r, 8),
                  r.getString(9),
                  r.getString(10),
                  r.getString(11),
                  r.getString(12),
                  r.getString(13),
                  Instant.ofEpochMilli(r.getLong(14)),
                  nullableLong(r, 15) == null ? null : Instant.ofEpochMilli(r.getLong(15)),
                  r.getInt(16),
                  r.getString(17)));
        }
        return jobs;
      }
    }
  }

  private static @Nullable Long nullableLong(ResultSet r, int column) throws SQLException {
    long value = r.getLong(column);
    return r.wasNull() ? null : value;
  }
}
