package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The webhook events of ended jobs ({@code webhook_outbox}), written in the transaction that ends
 * the job ({@link JobStore#finish}) and sent by the delivery loop until a receiver takes one, the
 * address is refused, or 24 hours of attempts pass. Thread safe.
 */
public final class WebhookOutbox {

  private static final String COLUMNS =
      "id, job_id, device_name, url, event_type, body, state, attempts, created_at,"
          + " next_attempt_at, traceparent";

  private final Jdbc jdbc;

  WebhookOutbox(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** Where an event is in its delivery. */
  public enum State {
    /** Not delivered yet; attempted again at its next attempt's time. */
    PENDING,
    /** A receiver answered 2xx. */
    DELIVERED,
    /** No receiver took it within 24 hours of attempts. */
    FAILED,
    /** The address may not be called (any more): never attempted again. */
    BLOCKED
  }

  /**
   * One event to deliver.
   *
   * @param id the {@code webhook-id}, the same on every attempt
   * @param type {@code job.succeeded}, {@code job.failed} or {@code job.cancelled}
   * @param body exactly the JSON that is signed and sent
   * @param attempts how many attempts were made so far
   * @param traceparent the W3C {@code traceparent} of the span that ended the job, when it was
   *     traced: each attempt is its child
   */
  public record Event(
      String id,
      String jobId,
      String device,
      String url,
      String type,
      String body,
      int attempts,
      Instant createdAt,
      Instant nextAttemptAt,
      @Nullable String traceparent) {
    public Event {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(body, "body");
    }
  }

  /**
   * An event no receiver took, for the operator: where it went, how often, and the last answer.
   *
   * @param lastStatus the receiver's last HTTP status, 0 when none answered
   * @param lastDetail the gateway's own sentence for the last attempt
   */
  public record Failed(
      String id,
      String jobId,
      String device,
      String url,
      String type,
      int attempts,
      Instant createdAt,
      int lastStatus,
      @Nullable String lastDetail) {}

  /** What {@link #sendAgain} did. */
  public enum Resend {
    /** The event is pending again, due now. */
    QUEUED,
    /** No such event is kept. */
    UNKNOWN,
    /** The event had not failed (it is pending, delivered or blocked): nothing changed. */
    NOT_FAILED
  }

  /** The failed events, the newest first, at most {@code limit}. */
  public List<Failed> failed(int limit) {
    return jdbc.read(
        "failed webhooks",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT id, job_id, device_name, url, event_type, attempts, created_at,"
                      + " last_status, last_detail FROM webhook_outbox WHERE state = 'FAILED'"
                      + " ORDER BY created_at DESC, id DESC LIMIT ?")) {
            s.setInt(1, limit);
            try (ResultSet r = s.executeQuery()) {
              List<Failed> events = new ArrayList<>();
              while (r.next()) {
                events.add(
                    new Failed(
                        r.getString(1),
                        r.getString(2),
                        r.getString(3),
                        r.getString(4),
                        r.getString(5),
                        r.getInt(6),
                        Instant.ofEpochMilli(r.getLong(7)),
                        r.getInt(8),
                        r.getString(9)));
              }
              return events;
            }
          }
        });
  }

  /**
   * Queues the failed event {@code id} again, due at {@code now}, with the same {@code webhook-id}
   * and body: its attempts count from zero and it has a fresh 24 hours of them (the give-up is
   * counted from {@code created_at}, which becomes {@code now}).
   */
  public Resend sendAgain(String id, Instant now) {
    return jdbc.autoCommit(
        "send webhook again",
        c -> {
          int changed =
              jdbc.update(
                  c,
                  "UPDATE webhook_outbox SET state = 'PENDING', attempts = 0, created_at = ?,"
                      + " next_attempt_at = ? WHERE id = ? AND state = 'FAILED'",
                  now.toEpochMilli(),
                  now.toEpochMilli(),
                  id);
          if (changed == 1) {
            return Resend.QUEUED;
          }
          try (PreparedStatement s =
              c.prepareStatement("SELECT 1 FROM webhook_outbox WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
              return r.next() ? Resend.NOT_FAILED : Resend.UNKNOWN;
            }
          }
        });
  }

  static void insert(Jdbc jdbc, Connection c, Event event) throws SQLException {
    jdbc.update(
        c,
        "INSERT INTO webhook_outbox (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        event.id(),
        event.jobId(),
        event.device(),
        event.url(),
        event.type(),
        event.body(),
        State.PENDING.name(),
        event.attempts(),
        event.createdAt().toEpochMilli(),
        event.nextAttemptAt().toEpochMilli(),
        event.traceparent());
  }

  /** Pending events whose next attempt is due at {@code now}, the longest due first. */
  public List<Event> due(Instant now, int limit) {
    return jdbc.read(
        "due webhooks",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT "
                      + COLUMNS
                      + " FROM webhook_outbox WHERE state = 'PENDING' AND next_attempt_at <= ?"
                      + " ORDER BY next_attempt_at LIMIT ?")) {
            s.setLong(1, now.toEpochMilli());
            s.setInt(2, limit);
            try (ResultSet r = s.executeQuery()) {
              List<Event> events = new ArrayList<>();
              while (r.next()) {
                events.add(
                    new Event(
                        r.getString(1),
                        r.getString(2),
                        r.getString(3),
                        r.getString(4),
                        r.getString(5),
                        r.getString(6),
                        r.getInt(8),
                        Instant.ofEpochMilli(r.getLong(9)),
                        Instant.ofEpochMilli(r.getLong(10)),
                        r.getString(11)));
              }
              return events;
            }
          }
        });
  }

  /**
   * Takes a due event for one attempt by moving its next attempt to {@code until}: another instance
   * that read it as due too finds it moved and leaves it. Should this instance die in the attempt,
   * the event is due again at {@code until}.
   */
  public boolean take(Event event, Instant until) {
    return jdbc.autoCommit(
            "take webhook",
            c ->
                jdbc.update(
                    c,
                    "UPDATE webhook_outbox SET next_attempt_at = ? WHERE id = ?"
                        + " AND state = 'PENDING' AND next_attempt_at = ?",
                    until.toEpochMilli(),
                    event.id(),
                    event.nextAttemptAt().toEpochMilli()))
        == 1;
  }

  /**
   * Records one attempt's end.
   *
   * @param state {@link State#PENDING} with {@code next} to try again
   * @param status the receiver's status, 0 when none
   * @param detail the gateway's own sentence for the operator
   */
  public void attempted(
      String id, State state, int attempts, Instant next, int status, String detail) {
    jdbc.autoCommit(
        "record webhook attempt",
        c ->
            jdbc.update(
                c,
                "UPDATE webhook_outbox SET state = ?, attempts = ?, next_attempt_at = ?,"
                    + " last_status = ?, last_detail = ? WHERE id = ?",
                state.name(),
                attempts,
                next.toEpochMilli(),
                status,
                detail,
                id));
  }

  /** The event {@code id}'s state, if it is kept. */
  public Optional<State> state(String id) {
    return jdbc.read(
        "webhook state",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("SELECT state FROM webhook_outbox WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
              return r.next() ? Optional.of(State.valueOf(r.getString(1))) : Optional.empty();
            }
          }
        });
  }

  /** How many events wait for delivery now. */
  public long pending() {
    return jdbc.read(
        "count pending webhooks",
        c -> {
          try (PreparedStatement s =
                  c.prepareStatement(
                      "SELECT COUNT(*) FROM webhook_outbox WHERE state = 'PENDING'");
              ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
          }
        });
  }
}
