package dev.bolo.server.ledger;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A job's note in the {@code job_audio} table, in numbered rows of {@value #CHUNK_BYTES} bytes:
 * written in the transaction that makes the job, read back by whichever instance runs it.
 */
final class JobAudio {

  /** A note is stored in rows of this many bytes: each row a modest bind on both databases. */
  static final int CHUNK_BYTES = 1024 * 1024;

  private JobAudio() {}

  /** Stores {@code audio}, read to its end, as job {@code id}'s note, within {@code c}'s work. */
  static void store(Connection c, String id, InputStream audio) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("INSERT INTO job_audio (job_id, seq, bytes) VALUES (?, ?, ?)")) {
      int seq = 0;
      while (true) {
        byte[] chunk = audio.readNBytes(CHUNK_BYTES);
        if (chunk.length == 0) {
          return;
        }
        s.setString(1, id);
        s.setInt(2, seq++);
        s.setBytes(3, chunk);
        s.executeUpdate();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes job {@code id}'s note to {@code out}, as it was stored. */
  static void copy(Jdbc jdbc, String id, OutputStream out) {
    jdbc.read(
        "read job audio",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("SELECT bytes FROM job_audio WHERE job_id = ? ORDER BY seq")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                out.write(r.getBytes(1));
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return Boolean.TRUE;
        });
  }
}
