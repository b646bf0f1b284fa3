package dev.bolo.client;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads the gateway's jobs (PROTOCOL v4) from its JSON answers: a job, or a page of them. Anything
 * that is not one is null, for the caller to report as {@code invalid_response}. Stateless.
 */
final class JobReader {

  private JobReader() {}

  /** The job {@code json} describes, or null when it is not a job. */
  static @Nullable Job jobFrom(Map<?, ?> json) {
    String id = Json.string(json, "id");
    String statusName = Json.string(json, "status");
    Instant createdAt = instant(json.get("created_at"));
    String sha256 = Json.string(json, "audio_sha256");
    Job.Status status = statusName == null ? null : Job.Status.ofWireName(statusName);
    if (id == null || status == null || createdAt == null || sha256 == null) {
      return null;
    }
    Map<?, ?> progress = object(json.get("progress"));
    Map<?, ?> result = object(json.get("result"));
    return new Job(
        id,
        status,
        createdAt,
        instant(json.get("finished_at")),
        sha256,
        json.get("duration_ms") instanceof Number number ? number.longValue() : null,
        progress == null ? 0 : seconds(progress.get("seconds_done")),
        progress == null ? 0 : seconds(progress.get("seconds_total")),
        result == null ? null : AnswerReader.transcriptFrom(result),
        errorFrom(object(json.get("error"))),
        Json.string(json, "webhook_url"),
        labels(object(json.get("metadata"))));
  }

  /** The page {@code json} describes ({@code {"data":[…],"has_more":…}}), or null. */
  static @Nullable JobList listFrom(Map<?, ?> json) {
    if (!(json.get("data") instanceof List<?> data)) {
      return null;
    }
    List<Job> jobs = new ArrayList<>(data.size());
    for (Object item : data) {
      Map<?, ?> object = object(item);
      Job job = object == null ? null : jobFrom(object);
      if (job == null) {
        return null;
      }
      jobs.add(job);
    }
    return new JobList(jobs, Boolean.TRUE.equals(json.get("has_more")));
  }

  private static @Nullable JobError errorFrom(@Nullable Map<?, ?> json) {
    if (json == null) {
      return null;
    }
    String message = Json.string(json, "error");
    String code = Json.string(json, "code");
    return new JobError(
        code == null ? "unknown" : code,
        message == null ? "the job failed" : message,
        Json.string(json, "request_id"));
  }

  private static Map<String, String> labels(@Nullable Map<?, ?> json) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (json != null) {
      json.forEach(
          (name, value) -> {
            if (name instanceof String key && value instanceof String text) {
              labels.put(key, text);
            }
          });
    }
    return labels;
  }

  private static @Nullable Map<?, ?> object(@Nullable Object value) {
    return value instanceof Map<?, ?> object ? object : null;
  }

  private static double seconds(@Nullable Object value) {
    return value instanceof Number number ? number.doubleValue() : 0;
  }

  private static @Nullable Instant instant(@Nullable Object value) {
    if (!(value instanceof String text)) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException notATime) {
      return null;
    }
  }
}
