package dev.bolo.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.ClientText;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.ledger.WebhookOutbox;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The dashboard's jobs panel (docs/admin-api.md): {@code GET /admin/api/jobs} counts the jobs of
 * every device by status and lists the newest with their age and outcome (never their text or
 * audio: the operator oversees the queue, not the notes), and the webhook events no receiver took;
 * {@code POST /admin/api/webhooks/{id}/send-again} queues such an event again with its {@code
 * webhook-id}. Thread safe.
 */
final class AdminJobs {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Jobs listed: the panel shows what happens now, the device's own API pages through all. */
  static final int RECENT = 50;

  /** Failed events listed, the newest first. */
  static final int FAILED = 50;

  private final JobStore jobs;
  private final WebhookOutbox outbox;
  private final Clock clock;

  AdminJobs(JobStore jobs, WebhookOutbox outbox, Clock clock) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** {@code GET /admin/api/jobs}. */
  void overview(Context ctx) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode counts = body.putObject("counts");
    long[] byStatus = jobs.countByStatus();
    for (JobStatus status : JobStatus.values()) {
      counts.put(status.wireName(), byStatus[status.ordinal()]);
    }
    body.put("oldest_queued_seconds", jobs.oldestQueued(clock.instant()).toMillis() / 1000.0);
    ArrayNode recent = body.putArray("recent");
    for (JobRecord job : jobs.recent(RECENT)) {
      ObjectNode row = recent.addObject();
      row.put("id", job.id());
      row.put("device", job.device());
      row.put("status", job.status().wireName());
      row.put("created_at", job.createdAt().toString());
      row.put("finished_at", job.finishedAt() == null ? null : job.finishedAt().toString());
      row.put("duration_ms", job.durationMs());
      row.put("attempts", job.attempts());
      row.put("error_code", errorCodeOf(job.error()));
      row.put("has_webhook", job.webhookUrl() != null);
    }
    ArrayNode failed = body.putArray("failed_webhooks");
    for (WebhookOutbox.Failed event : outbox.failed(FAILED)) {
      ObjectNode row = failed.addObject();
      row.put("id", event.id());
      row.put("job_id", event.jobId());
      row.put("device", event.device());
      row.put("url", event.url());
      row.put("type", event.type());
      row.put("attempts", event.attempts());
      row.put("created_at", event.createdAt().toString());
      row.put("last_status", event.lastStatus() == 0 ? null : event.lastStatus());
      row.put("last_detail", event.lastDetail());
    }
    json(ctx, 200, body);
  }

  /** {@code POST /admin/api/webhooks/{id}/send-again}: a failed event, due again now. */
  void sendAgain(Context ctx) {
    String id = ctx.pathParam("id");
    switch (outbox.sendAgain(id, clock.instant())) {
      case QUEUED -> {
        ObjectNode body = JSON.createObjectNode();
        body.put("id", id);
        body.put("state", "pending");
        json(ctx, 200, body);
      }
      case UNKNOWN ->
          ErrorWriter.write(
              ctx,
              Dialect.NATIVE,
              new ApiError(404, "not_found", "no webhook event " + ClientText.shown(id, 64)));
      case NOT_FAILED ->
          ErrorWriter.write(
              ctx,
              Dialect.NATIVE,
              new ApiError(
                  409,
                  "not_failed",
                  "only a failed webhook event is sent again; "
                      + ClientText.shown(id, 64)
                      + " is pending, delivered or blocked"));
    }
  }

  /** The code of a failed job's error (its JSON, as the job keeps it); null for none. */
  private static @Nullable String errorCodeOf(@Nullable String error) {
    if (error == null) {
      return null;
    }
    try {
      JsonNode code = JSON.readTree(error).get("code");
      return code != null && code.isTextual() ? code.asText() : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static void json(Context ctx, int status, ObjectNode body) {
    try {
      ctx.status(status).contentType("application/json").result(JSON.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain values always serialises", e);
    }
  }
}
