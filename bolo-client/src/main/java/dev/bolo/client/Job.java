package dev.bolo.client;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A job as the gateway answers it ({@code POST/GET/DELETE /v1/jobs}, PROTOCOL v4): a note handed
 * over to be transcribed later, and where it stands.
 *
 * @param id the job's id, such as {@code job_5f0c…}
 * @param status where it stands
 * @param createdAt when the gateway stored it
 * @param finishedAt when it ended; null while it waits or runs
 * @param audioSha256 the gateway's own hex SHA-256 of the note
 * @param durationMs the note's length as the gateway measured it; null when it could not tell
 * @param secondsDone how much of the note has been transcribed, in the note's seconds
 * @param secondsTotal the note's seconds to transcribe (0 when not known yet)
 * @param result the transcript, once {@link Status#SUCCEEDED}
 * @param error why it failed, once {@link Status#FAILED}
 * @param webhookUrl where its end is posted; null for none
 * @param metadata the job's labels, as submitted
 */
public record Job(
    String id,
    Status status,
    Instant createdAt,
    @Nullable Instant finishedAt,
    String audioSha256,
    @Nullable Long durationMs,
    double secondsDone,
    double secondsTotal,
    @Nullable Transcript result,
    @Nullable JobError error,
    @Nullable String webhookUrl,
    Map<String, String> metadata) {

  public Job {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(audioSha256, "audioSha256");
    metadata = Map.copyOf(metadata);
  }

  /** Whether the job has ended: it will not change again. */
  public boolean isEnded() {
    return status.isEnded();
  }

  /** Where a job stands; the gateway's wire names in lower case. */
  public enum Status {
    /** Stored, waiting for an instance of the gateway to run it. */
    QUEUED,
    /** Being transcribed. */
    RUNNING,
    /** Transcribed: {@link Job#result()} holds the transcript. */
    SUCCEEDED,
    /** Ended without a transcript: {@link Job#error()} says why. */
    FAILED,
    /** Cancelled before it ended; never charged. */
    CANCELLED;

    /** The name the gateway uses, such as {@code queued}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Whether a job of this status has ended. */
    public boolean isEnded() {
      return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    /** The status of {@code wireName}, or null when it is none of the five. */
    static @Nullable Status ofWireName(String wireName) {
      for (Status status : values()) {
        if (status.wireName().equals(wireName)) {
          return status;
        }
      }
      return null;
    }
  }
}
