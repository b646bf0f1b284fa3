package dev.bolo.server.ledger;

import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Jobs and their notes in the ledger's database ({@code jobs}, {@code job_audio}): any instance
 * sharing the database can run a job, since its bytes are there and not in one instance's spool. A
 * job is run by one instance at a time, the one holding its lease; a lease that lapsed (its
 * instance died) is anyone's. Thread safe.
 */
public final class JobStore {

  /** A note is stored in rows of this many bytes ({@link JobAudio}). */
  static final int CHUNK_BYTES = JobAudio.CHUNK_BYTES;

  private static final String WAITING = "status IN ('QUEUED', 'RUNNING')";

  private final Jdbc jdbc;

  JobStore(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** How a job's creation went. */
  public sealed interface Creation {
    /** Stored, with its note: durable from here on. */
    record Created(JobRecord job) implements Creation {}

    /** The device made a job with this Idempotency-Key before: that job, nothing stored. */
    record Existing(JobRecord job) implements Creation {}

    /** The device's queue is full (jobs or bytes); the message says which. */
    record Full(String message) implements Creation {}
  }

  /**
   * The bounds of one device's waiting (queued or running) jobs.
   *
   * @param jobs how many may wait at once
   * @param bytes how many bytes of notes they may hold together
   */
  public record Bounds(int jobs, long bytes) {
    public Bounds {
      if (jobs < 1 || bytes < 1) {
        throw new IllegalArgumentException("job bounds must be positive: " + jobs + ", " + bytes);
      }
    }
  }

  /**
   * Stores {@code job} and the note {@code audio} gives, in one transaction: after it commits the
   * job survives any crash. A job of the same device with the same Idempotency-Key is answered
   * instead; a device over its bounds stores nothing.
   *
   * @throws UncheckedIOException when the note cannot be read
   */
  public Creation create(JobRecord job, InputStream audio, Bounds bounds) {
    return create(job, audio, bounds, ended -> Optional.empty());
  }

  /**
   * Stores {@code job} as {@link #create(JobRecord, InputStream, Bounds)} does; a job made ended (a
   * replay) has the webhook event {@code event} makes of it stored in the same transaction.
   */
  public Creation create(
      JobRecord job,
      InputStream audio,
      Bounds bounds,
      Function<JobRecord, Optional<WebhookOutbox.Event>> event) {
    return jdbc.inTransaction(
        "create job",
        c -> {
          // One device's creations take turns (see DeviceLock), so none passes the bound unseen.
          DeviceLock.lock(jdbc, c, job.device());
          if (job.idempotencyKey() != null) {
            List<JobRecord> same =
                JobRows.query(
                    c,
                    "WHERE device_name = ? AND idempotency_key = ?",
                    job.device(),
                    job.idempotencyKey());
            if (!same.isEmpty()) {
              return new Creation.Existing(same.getFirst());
            }
          }
          // A job made ended (a replay) waits for nothing: it counts against no bound.
          if (!job.status().isFinal()) {
            long[] waiting = waiting(c, job.device());
            if (waiting[0] + 1 > bounds.jobs()) {
              return new Creation.Full(
                  "this device has " + waiting[0] + " jobs waiting, the most it may have");
            }
            if (waiting[1] + job.audioBytes() > bounds.bytes()) {
              return new Creation.Full(
                  "this device's waiting jobs hold "
                      + waiting[1]
                      + " bytes; this note of "
                      + job.audioBytes()
                      + " would pass the "
                      + bounds.bytes()
                      + " it may hold");
            }
          }
          JobRows.insert(c, job);
          JobAudio.store(c, job.id(), audio);
          if (job.status().isFinal()) {
            Optional<WebhookOutbox.Event> made = event.apply(job);
            if (made.isPresent()) {
              WebhookOutbox.insert(jdbc, c, made.get());
            }
          }
          return new Creation.Created(job);
        });
  }

  /** The job {@code id}, whoever's it is. */
  public Optional<JobRecord> find(String id) {
    return jdbc.read("find job", c -> JobRows.query(c, "WHERE id = ?", id).stream().findFirst());
  }

  /**
   * The device's jobs, newest first: those made before the job {@code after} when it is given, only
   * those in {@code status} when it is given, at most {@code limit}.
   */
  public List<JobRecord> list(
      String device, @Nullable JobStatus status, @Nullable JobRecord after, int limit) {
    StringBuilder where = new StringBuilder("WHERE device_name = ?");
    List<Object> parameters = new ArrayList<>(List.of(device));
    if (status != null) {
      where.append(" AND status = ?");
      parameters.add(status.name());
    }
    if (after != null) {
      long at = after.createdAt().toEpochMilli();
      where.append(" AND (created_at < ? OR (created_at = ? AND id < ?))");
      parameters.addAll(List.of(at, at, after.id()));
    }
    where.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
    parameters.add(limit);
    return jdbc.read("list jobs", c -> JobRows.query(c, where.toString(), parameters.toArray()));
  }

  /**
   * Takes the lease of the oldest waiting job nobody holds (or whose holder's lease lapsed) until
   * {@code until}, and marks it running. PostgreSQL skips rows another instance is taking at this
   * moment ({@code FOR UPDATE SKIP LOCKED}); SQLite's write lock makes the pick and the take one.
   */
  public Optional<JobRecord> claim(String owner, Instant now, Instant until) {
    return jdbc.inTransaction(
        "claim job",
        c -> {
          boolean postgres = c.getMetaData().getDatabaseProductName().equals("PostgreSQL");
          String id = null;
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT id FROM jobs WHERE "
                      + WAITING
                      + " AND (lease_until IS NULL OR lease_until < ?)"
                      + " ORDER BY created_at LIMIT 1"
                      + (postgres ? " FOR UPDATE SKIP LOCKED" : ""))) {
            s.setLong(1, now.toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
              if (r.next()) {
                id = r.getString(1);
              }
            }
          }
          if (id == null) {
            return Optional.<JobRecord>empty();
          }
          jdbc.update(
              c,
              "UPDATE jobs SET status = 'RUNNING', lease_owner = ?, lease_until = ?,"
                  + " attempts = attempts + 1 WHERE id = ?",
              owner,
              until.toEpochMilli(),
              id);
          return JobRows.query(c, "WHERE id = ?", id).stream().findFirst();
        });
  }

  /** Extends {@code owner}'s lease of a running job; false when it is no longer {@code owner}'s. */
  public boolean renew(String id, String owner, Instant until) {
    return jdbc.autoCommit(
            "renew job lease",
            c ->
                jdbc.update(
                    c,
                    "UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND "
                        + WAITING,
                    until.toEpochMilli(),
                    id,
                    owner))
        == 1;
  }

  /**
   * Frees every lease {@code owner} holds: called by an instance as it starts, since the jobs its
   * slot held belong to its own earlier run, killed before they ended (see {@code InstanceSlot}).
   *
   * @return how many jobs were freed
   */
  public int freeLeasesOf(String owner) {
    return jdbc.autoCommit(
        "free job leases",
        c ->
            jdbc.update(
                c,
                "UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ? AND "
                    + WAITING,
                owner));
  }

  /**
   * Puts {@code owner}'s running job back in the queue, to be taken again no sooner than {@code
   * notBefore}: its work failed in a way a later attempt may not.
   *
   * @return the number of times it was taken so far, or 0 when it is no longer {@code owner}'s
   */
  public int requeue(String id, String owner, Instant notBefore) {
    return jdbc.inTransaction(
        "requeue job",
        c -> {
          int changed =
              jdbc.update(
                  c,
                  "UPDATE jobs SET status = 'QUEUED', lease_owner = NULL, lease_until = ?"
                      + " WHERE id = ? AND lease_owner = ? AND status = 'RUNNING'",
                  notBefore.toEpochMilli(),
                  id,
                  owner);
          if (changed == 0) {
            return 0;
          }
          try (PreparedStatement s = c.prepareStatement("SELECT attempts FROM jobs WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
              r.next();
              return r.getInt(1);
            }
          }
        });
  }

  /** Writes the job's note to {@code out}, as it was stored. */
  public void copyAudio(String id, OutputStream out) {
    JobAudio.copy(jdbc, id, out);
  }

  /**
   * How a job ended.
   *
   * @param result the transcription answer's JSON when it succeeded
   * @param error the error's JSON when it failed
   * @param durationMs the note's length as charged or measured, when known
   */
  public record Ending(
      JobStatus status,
      @Nullable String result,
      @Nullable String error,
      @Nullable Long durationMs) {
    public Ending {
      if (!status.isFinal()) {
        throw new IllegalArgumentException("a job ends succeeded, failed or cancelled: " + status);
      }
    }
  }

  /**
   * Ends a waiting job and drops its note; in the same transaction, stores the webhook event {@code
   * event} makes of the ended job, if any: an ended job's event is never lost, nor sent for a job
   * that did not end. Nothing happens to a job that ended already (cancelled meanwhile).
   *
   * @return the ended job, or empty when it had ended already or is gone
   */
  public Optional<JobRecord> finish(
      String id,
      Ending ending,
      Instant at,
      Function<JobRecord, Optional<WebhookOutbox.Event>> event) {
    return jdbc.inTransaction(
        "finish job",
        c -> {
          int changed =
              JobRows.bound(
                  c,
                  "UPDATE jobs SET status = ?, result = ?, error = ?,"
                      + " duration_ms = COALESCE(CAST(? AS BIGINT), duration_ms), finished_at = ?,"
                      + " lease_owner = NULL, lease_until = NULL WHERE id = ? AND "
                      + WAITING,
                  ending.status().name(),
                  ending.result(),
                  ending.error(),
                  ending.durationMs(),
                  at.toEpochMilli(),
                  id);
          if (changed == 0) {
            return Optional.<JobRecord>empty();
          }
          jdbc.update(c, "DELETE FROM job_audio WHERE job_id = ?", id);
          JobRecord ended = JobRows.query(c, "WHERE id = ?", id).getFirst();
          Optional<WebhookOutbox.Event> made = event.apply(ended);
          if (made.isPresent()) {
            WebhookOutbox.insert(jdbc, c, made.get());
          }
          return Optional.of(ended);
        });
  }

  /**
   * Deletes the jobs made before {@code cutoff}, with their notes and webhook events: the
   * operator's retention ({@code BOLO_JOB_RETENTION}).
   *
   * @return how many jobs went
   */
  public int deleteMadeBefore(Instant cutoff) {
    long before = cutoff.toEpochMilli();
    String old = "(SELECT id FROM jobs WHERE created_at < ?)";
    return jdbc.inTransaction(
        "delete old jobs",
        c -> {
          jdbc.update(c, "DELETE FROM job_audio WHERE job_id IN " + old, before);
          jdbc.update(c, "DELETE FROM webhook_outbox WHERE job_id IN " + old, before);
          return jdbc.update(c, "DELETE FROM jobs WHERE created_at < ?", before);
        });
  }

  /** The newest jobs of every device, at most {@code limit}, for the operator. */
  public List<JobRecord> recent(int limit) {
    return jdbc.read(
        "recent jobs", c -> JobRows.query(c, "ORDER BY created_at DESC, id DESC LIMIT ?", limit));
  }

  /** How many jobs are in each status now, over every device (for metrics). */
  public long[] countByStatus() {
    return jdbc.read(
        "count jobs",
        c -> {
          long[] counts = new long[JobStatus.values().length];
          try (PreparedStatement s =
                  c.prepareStatement("SELECT status, COUNT(*) FROM jobs GROUP BY status");
              ResultSet r = s.executeQuery()) {
            while (r.next()) {
              counts[JobStatus.valueOf(r.getString(1)).ordinal()] = r.getLong(2);
            }
          }
          return counts;
        });
  }

  /** The age of the oldest queued job at {@code now}; zero when none waits. */
  public Duration oldestQueued(Instant now) {
    return jdbc.read(
        "age of queue",
        c -> {
          try (PreparedStatement s =
                  c.prepareStatement("SELECT MIN(created_at) FROM jobs WHERE status = 'QUEUED'");
              ResultSet r = s.executeQuery()) {
            r.next();
            long oldest = r.getLong(1);
            return r.wasNull()
                ? Duration.ZERO
                : Duration.ofMillis(Math.max(0, now.toEpochMilli() - oldest));
          }
        });
  }

  /** The device's waiting jobs: {count, bytes}. */
  private static long[] waiting(Connection c, String device) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT COUNT(*), COALESCE(SUM(audio_bytes), 0) FROM jobs WHERE device_name = ? AND "
                + WAITING)) {
      s.setString(1, device);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return new long[] {r.getLong(1), r.getLong(2)};
      }
    }
  }
}
