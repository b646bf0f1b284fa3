package dev.bolo.server.dedup;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The JSON form of what {@link RedisDedupStore} keeps in Redis and publishes. The field names are a
 * storage format shared by every gateway instance on one Redis (also across versions during a
 * rolling upgrade), so they are spelled out here rather than derived from the domain records.
 *
 * <p>Thread safe: the mapper is configured once and only read.
 */
final class RedisValues {

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          // An instance of a newer version may add fields; an older one must still read the rest.
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
          .setSerializationInclusion(JsonInclude.Include.NON_NULL);

  private RedisValues() {}

  /** A refusal as published to waiters and remembered briefly after a failure. */
  record StoredRefusal(
      @JsonProperty("problem") Problem problem,
      @JsonProperty("message") String message,
      @JsonProperty("retry_after_ms") @Nullable Long retryAfterMs) {

    static StoredRefusal of(WorkResult.Refused r) {
      Duration retryAfter = r.retryAfter();
      return new StoredRefusal(
          r.problem(), r.message(), retryAfter == null ? null : retryAfter.toMillis());
    }

    WorkResult.Refused refusal() {
      return new WorkResult.Refused(
          problem, message, retryAfterMs == null ? null : Duration.ofMillis(retryAfterMs));
    }
  }

  /**
   * What the owner publishes when its work ends: exactly one of transcript and refusal.
   *
   * @param token the ending claim's token
   */
  record Ended(
      @JsonProperty("token") String token,
      @JsonProperty("transcript") @Nullable StoredTranscript transcript,
      @JsonProperty("refusal") @Nullable StoredRefusal refusal) {

    Resolution resolution() {
      if (transcript != null) {
        return new Resolution.Completed(transcript.transcript());
      }
      if (refusal != null) {
        return new Resolution.Failed(refusal.refusal());
      }
      throw new IllegalStateException("an end message carries a transcript or a refusal: " + this);
    }
  }

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
    }
  }

  static <T> T read(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "unreadable " + type.getSimpleName() + " in Redis: " + abbreviate(json), e);
    }
  }

  private static String abbreviate(String json) {
    return json.length() <= 200 ? json : json.substring(0, 200) + "…";
  }
}
