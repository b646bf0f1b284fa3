package dev.bolo.server.ledger;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One job as the ledger's {@code jobs} table keeps it.
 *
 * @param id {@code job_…}
 * @param device the device that made it; no other sees it
 * @param fields the note's settings as sent, a JSON object of form field names to values
 * @param audioBytes the note's size, counted against the device's queued bytes while it waits
 * @param durationMs the note's length as charged or measured, once known
 * @param claimedDurationMs the client's {@code X-Bolo-Audio-Duration-Ms}, if sent
 * @param idempotencyKey the client's {@code Idempotency-Key}, if sent: the same key, the same job
 * @param metadata the client's metadata, a JSON object of strings, echoed back
 * @param result the transcription answer (JSON) once it succeeded
 * @param error the error (JSON) once it failed
 * @param attempts how many times an instance took it
 * @param traceparent the W3C {@code traceparent} of the request that made it, when it was traced:
 *     its runs link to that span
 */
public record JobRecord(
    String id,
    String device,
    JobStatus status,
    String fields,
    String audioSha256,
    long audioBytes,
    @Nullable Long durationMs,
    @Nullable Long claimedDurationMs,
    @Nullable String idempotencyKey,
    @Nullable String webhookUrl,
    String metadata,
    @Nullable String result,
    @Nullable String error,
    Instant createdAt,
    @Nullable Instant finishedAt,
    int attempts,
    @Nullable String traceparent) {

  public JobRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(fields, "fields");
    Objects.requireNonNull(audioSha256, "audioSha256");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** A job just accepted: queued, nothing known of its end. */
  public static JobRecord queued(
      String id,
      String device,
      String fields,
      String audioSha256,
      long audioBytes,
      @Nullable Long claimedDurationMs,
      @Nullable String idempotencyKey,
      @Nullable String webhookUrl,
      String metadata,
      Instant createdAt,
      @Nullable String traceparent) {
    return new JobRecord(
        id,
        device,
        JobStatus.QUEUED,
        fields,
        audioSha256,
        audioBytes,
        null,
        claimedDurationMs,
        idempotencyKey,
        webhookUrl,
        metadata,
        null,
        null,
        createdAt,
        null,
        0,
        traceparent);
  }
}
