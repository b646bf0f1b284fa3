package dev.bolo.client;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Why a job failed: the error {@code POST /v1/transcriptions} would have answered for its note.
 *
 * @param code the gateway's machine-readable code, such as {@code upstream_rejected}
 * @param message the gateway's sentence
 * @param requestId the id the gateway logged the failure under, when it said
 */
public record JobError(String code, String message, @Nullable String requestId) {

  public JobError {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
  }
}
