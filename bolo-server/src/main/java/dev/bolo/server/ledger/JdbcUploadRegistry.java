package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** {@link UploadRegistry} on the ledger's {@code resumable_uploads} table. */
final class JdbcUploadRegistry implements UploadRegistry {

  private static final String COLUMNS =
      "id, device_name, instance_id, protocol, upload_length, upload_offset, fields,"
          + " declared_sha256, idempotency_key, state, audio_sha256, outcome, created_at,"
          + " expires_at";

  private final Jdbc jdbc;

  JdbcUploadRegistry(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public boolean create(StoredUpload upload, int maxUnfinished) {
    return jdbc.inTransaction(
        "create upload",
        c -> {
          // Creations of one device take turns, so two of them can never both pass the bound:
          // PostgreSQL locks the device's row until the commit; SQLite's IMMEDIATE transaction
          // holds the database's write lock from its start.
          DeviceLock.lock(jdbc, c, upload.device());
          if (countUnfinished(c, upload.device(), upload.createdAt()) >= maxUnfinished) {
            return false;
          }
          jdbc.update(
              c,
              "INSERT INTO resumable_uploads ("
                  + COLUMNS
                  + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              upload.id(),
              upload.device(),
              upload.instanceId(),
              upload.protocol(),
              upload.length(),
              upload.offset(),
              upload.fields(),
              upload.declaredSha256(),
              upload.idempotencyKey(),
              upload.state().name(),
              upload.audioSha256(),
              upload.outcome(),
              upload.createdAt().toEpochMilli(),
              upload.expiresAt().toEpochMilli());
          return true;
        });
  }

  @Override
  public Optional<StoredUpload> find(String id) {
    return jdbc.autoCommit(
        "find upload",
        c -> {
          List<StoredUpload> found =
              query(c, "SELECT " + COLUMNS + " FROM resumable_uploads WHERE id = ?", id);
          return found.stream().findFirst();
        });
  }

  @Override
  public int countUnfinished(String device, Instant now) {
    return jdbc.autoCommit("count uploads", c -> countUnfinished(c, device, now));
  }

  private static int countUnfinished(Connection c, String device, Instant now) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT COUNT(*) FROM resumable_uploads WHERE device_name = ?"
                + " AND state IN ('OPEN', 'TRANSCRIBING') AND expires_at > ?")) {
      s.setString(1, device);
      s.setLong(2, now.toEpochMilli());
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getInt(1);
      }
    }
  }

  @Override
  public boolean advance(String id, long expectedOffset, long newOffset, long length) {
    return jdbc.autoCommit(
            "advance upload",
            c ->
                jdbc.update(
                    c,
                    "UPDATE resumable_uploads SET upload_offset = ?, upload_length = ?"
                        + " WHERE id = ? AND upload_offset = ? AND state = 'OPEN'",
                    newOffset,
                    length,
                    id,
                    expectedOffset))
        == 1;
  }

  @Override
  public boolean startTranscription(String id, String audioSha256) {
    return jdbc.autoCommit(
            "start transcription",
            c ->
                jdbc.update(
                    c,
                    "UPDATE resumable_uploads SET state = 'TRANSCRIBING', audio_sha256 = ?"
                        + " WHERE id = ? AND state = 'OPEN'",
                    audioSha256,
                    id))
        == 1;
  }

  @Override
  public void finish(String id, StoredUpload.State state, String outcome) {
    jdbc.autoCommit(
        "finish upload",
        c ->
            jdbc.update(
                c,
                "UPDATE resumable_uploads SET state = ?, outcome = ? WHERE id = ?",
                state.name(),
                outcome,
                id));
  }

  @Override
  public boolean delete(String id) {
    return jdbc.autoCommit(
            "delete upload", c -> jdbc.update(c, "DELETE FROM resumable_uploads WHERE id = ?", id))
        == 1;
  }

  @Override
  public List<StoredUpload> expired(String instanceId, Instant now) {
    return select(
        "find expired uploads",
        "instance_id = ? AND expires_at <= ?",
        instanceId,
        now.toEpochMilli());
  }

  @Override
  public List<StoredUpload> open(String device, Instant now) {
    return select(
        "find open uploads",
        "device_name = ? AND state = 'OPEN' AND expires_at > ? ORDER BY created_at, id",
        device,
        now.toEpochMilli());
  }

  @Override
  public List<StoredUpload> live(String instanceId, Instant now) {
    return select(
        "find live uploads", "instance_id = ? AND expires_at > ?", instanceId, now.toEpochMilli());
  }

  /** The uploads {@code where} selects, in a transaction of their own. */
  private List<StoredUpload> select(String what, String where, Object... parameters) {
    return jdbc.autoCommit(
        what,
        c -> query(c, "SELECT " + COLUMNS + " FROM resumable_uploads WHERE " + where, parameters));
  }

  private static List<StoredUpload> query(Connection c, String sql, Object... parameters)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        switch (parameters[i]) {
          case String text -> s.setString(i + 1, text);
          case Long number -> s.setLong(i + 1, number);
          default ->
              throw new IllegalArgumentException(
                  "unsupported parameter type: " + parameters[i].getClass());
        }
      }
      List<StoredUpload> found = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          found.add(
              new StoredUpload(
                  r.getString("id"),
                  r.getString("device_name"),
                  r.getString("instance_id"),
                  r.getString("protocol"),
                  r.getLong("upload_length"),
                  r.getLong("upload_offset"),
                  r.getString("fields"),
                  r.getString("declared_sha256"),
                  r.getString("idempotency_key"),
                  StoredUpload.State.valueOf(r.getString("state").toUpperCase(Locale.ROOT)),
                  r.getString("audio_sha256"),
                  r.getString("outcome"),
                  Instant.ofEpochMilli(r.getLong("created_at")),
                  Instant.ofEpochMilli(r.getLong("expires_at"))));
        }
      }
      return found;
    }
  }
}
