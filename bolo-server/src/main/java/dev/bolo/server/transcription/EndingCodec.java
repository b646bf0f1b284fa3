package dev.bolo.server.transcription;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.upload.UploadResult;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How an upload ended, as the ledger database keeps it ({@link StoredUpload#outcome()}): one JSON
 * object whose {@code kind} names the ending, e.g. {@code
 * {"kind":"refused","problem":"QUOTA_EXHAUSTED","message":"…"}}. A transcribed upload keeps only
 * whether it was replayed: its transcript lives in the replay store. Stateless and thread safe.
 */
final class EndingCodec {

  private static final ObjectMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private EndingCodec() {}

  /** The kinds of ending, by their stored names. */
  enum Kind {
    @JsonProperty("transcribed")
    TRANSCRIBED,
    @JsonProperty("refused")
    REFUSED,
    @JsonProperty("unusable")
    UNUSABLE,
    @JsonProperty("hash_mismatch")
    HASH_MISMATCH
  }

  /** The stored object; each kind sets its own fields and leaves the others out. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Stored(
      Kind kind,
      @Nullable Boolean replayed,
      @Nullable Problem problem,
      @Nullable String message,
      @JsonProperty("retry_after_ms") @Nullable Long retryAfterMs,
      UploadResult.@Nullable Reason reason,
      @Nullable String declared,
      @Nullable String computed) {

    Stored {
      Objects.requireNonNull(kind, "kind");
    }
  }

  /** The state a finished upload with this ending is in. */
  static StoredUpload.State stateOf(UploadEnding ending) {
    return switch (ending) {
      case UploadEnding.Transcribed t -> StoredUpload.State.DONE;
      case UploadEnding.Failed r -> StoredUpload.State.FAILED;
      case UploadEnding.Unusable u -> StoredUpload.State.FAILED;
      case UploadEnding.HashMismatch h -> StoredUpload.State.FAILED;
    };
  }

  /** The ending as the ledger keeps it. */
  static String encode(UploadEnding ending) {
    Stored stored =
        switch (ending) {
          case UploadEnding.Transcribed t ->
              new Stored(Kind.TRANSCRIBED, t.replayed(), null, null, null, null, null, null);
          case UploadEnding.Failed r -> {
            Duration retryAfter = r.refused().retryAfter();
            yield new Stored(
                Kind.REFUSED,
                null,
                r.refused().problem(),
                r.refused().message(),
                retryAfter == null ? null : retryAfter.toMillis(),
                null,
                null,
                null);
          }
          case UploadEnding.Unusable u ->
              new Stored(
                  Kind.UNUSABLE, null, null, u.why().message(), null, u.why().reason(), null, null);
          case UploadEnding.HashMismatch h ->
              new Stored(
                  Kind.HASH_MISMATCH, null, null, null, null, null, h.declared(), h.computed());
        };
    try {
      return JSON.writeValueAsString(stored);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an ending is always written: " + ending, e);
    }
  }

  /** Whether a transcribed upload's note was already transcribed before it ({@code DONE}). */
  static boolean replayed(StoredUpload done) {
    return Boolean.TRUE.equals(read(done).replayed());
  }

  /**
   * How an upload that ended without a transcript ({@code FAILED}) ended.
   *
   * @throws IllegalStateException when the record holds no such ending
   */
  static UploadEnding failure(StoredUpload failed) {
    Stored stored = read(failed);
    String message = Objects.requireNonNullElse(stored.message(), "");
    return switch (stored.kind()) {
      case REFUSED -> {
        Long retryAfterMs = stored.retryAfterMs();
        yield new UploadEnding.Failed(
            new WorkResult.Refused(
                required(stored.problem(), "problem", failed),
                message,
                retryAfterMs == null ? null : Duration.ofMillis(retryAfterMs)));
      }
      case UNUSABLE ->
          new UploadEnding.Unusable(
              new UploadResult.Invalid(required(stored.reason(), "reason", failed), message));
      case HASH_MISMATCH ->
          new UploadEnding.HashMismatch(
              Objects.requireNonNullElse(stored.declared(), ""),
              Objects.requireNonNullElse(stored.computed(), ""));
      case TRANSCRIBED ->
          throw new IllegalStateException(
              "upload " + failed.id() + " failed but its outcome says transcribed");
    };
  }

  private static Stored read(StoredUpload upload) {
    String outcome =
        Objects.requireNonNull(upload.outcome(), "outcome of finished upload " + upload.id());
    try {
      return JSON.readValue(outcome, Stored.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unknown stored outcome of upload " + upload.id(), e);
    }
  }

  private static <T> T required(@Nullable T value, String field, StoredUpload upload) {
    if (value == null) {
      throw new IllegalStateException(
          "the stored outcome of upload " + upload.id() + " has no " + field);
    }
    return value;
  }
}
