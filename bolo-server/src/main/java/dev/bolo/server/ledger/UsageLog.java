package dev.bolo.server.ledger;

import dev.bolo.server.work.Replay;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's {@code usage_log}: one row per answered request, written off the request's path in
 * the batches of {@link GroupCommit}. Thread safe.
 */
final class UsageLog {

  private static final Logger log = LoggerFactory.getLogger(UsageLog.class);

  /** A flush waits this long for the rows queued before it to commit. */
  private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(10);

  private final GroupCommit writes;
  private final Jdbc jdbc;

  UsageLog(GroupCommit writes, Jdbc jdbc) {
    this.writes = writes;
    this.jdbc = jdbc;
  }

  /** As {@link Ledger#record}: the row joins the next batch; a failure is logged, not answered. */
  void record(UsageRecord usage) {
    writes
        .submit("record usage", c -> insert(c, usage))
        .whenComplete(
            (rows, failure) -> {
              if (failure != null) {
                log.error("could not record usage: {}", failure.getMessage());
              }
            });
  }

  /** As {@link DurableLedger#flushWrites}: waits for every row recorded so far. */
  void flush() {
    writes.await("flush usage", c -> 0, FLUSH_TIMEOUT);
  }

  private int insert(Connection c, UsageRecord usage) throws SQLException {
    return jdbc.update(
        c,
        "INSERT INTO usage_log (id, device_name, work_key, audio_sha256, audio_ms,"
            + " duration_measured, engine, outcome, replayed, joined, request_id, answered_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        // Ordered by when the note was answered, on the clock that stamped it.
        RowIds.next(usage.at().toEpochMilli()),
        usage.device(),
        usage.workKey(),
        usage.audioSha256(),
        usage.audioMillis(),
        usage.durationMeasured() ? 1 : 0,
        usage.engine(),
        usage.outcome(),
        usage.replayed() ? 1 : 0,
        usage.replay() == Replay.JOINED ? 1 : 0,
        usage.requestId(),
        usage.at().toEpochMilli());
  }
}
