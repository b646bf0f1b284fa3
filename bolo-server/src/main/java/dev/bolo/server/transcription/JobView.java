package dev.bolo.server.transcription;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A job as clients and webhook receivers read it (PROTOCOL v4): {@code id}, {@code status}, {@code
 * created_at}, {@code audio_sha256}, {@code duration_ms}, {@code progress}, {@code result}, {@code
 * error}, {@code metadata}. Stateless and thread safe.
 */
public final class JobView {

  private static final ObjectMapper JSON = new ObjectMapper();

  private JobView() {}

  /**
   * The job's JSON object.
   *
   * @param running how far its work has got, when it runs on this instance
   */
  public static ObjectNode of(JobRecord job, Optional<WorkProgress> running) {
    ObjectNode view = JSON.createObjectNode();
    view.put("id", job.id());
    view.put("object", "job");
    view.put("status", job.status().wireName());
    view.put("created_at", job.createdAt().toString());
    putNullable(view, "finished_at", job.finishedAt() == null ? null : job.finishedAt().toString());
    view.put("audio_sha256", job.audioSha256());
    Long durationMs = job.durationMs();
    if (durationMs == null) {
      view.putNull("duration_ms");
    } else {
      view.put("duration_ms", durationMs);
    }
    ObjectNode progress = view.putObject("progress");
    long totalMillis =
        running.map(WorkProgress::totalMillis).orElse(durationMs == null ? 0L : durationMs);
    long doneMillis =
        job.status() == JobStatus.SUCCEEDED
            ? totalMillis
            : running.map(WorkProgress::doneMillis).orElse(0L);
    progress.put("seconds_done", doneMillis / 1000.0);
    progress.put("seconds_total", totalMillis / 1000.0);
    view.set("result", parsed(job.result()));
    view.set("error", parsed(job.error()));
    putNullable(view, "webhook_url", job.webhookUrl());
    view.set("metadata", parsed(job.metadata()));
    return view;
  }

  private static void putNullable(ObjectNode view, String name, @Nullable String value) {
    if (value == null) {
      view.putNull(name);
    } else {
      view.put(name, value);
    }
  }

  private static JsonNode parsed(@Nullable String json) {
    if (json == null) {
      return JSON.nullNode();
    }
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the ledger keeps a job's JSON as it was written", e);
    }
  }
}
