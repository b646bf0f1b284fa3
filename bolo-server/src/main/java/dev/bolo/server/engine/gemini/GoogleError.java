package dev.bolo.server.engine.gemini;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.ProviderRetryAfter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Google's error envelope, {@code {"error": {"code", "message", "status", "details": [...]}}} (the
 * {@code google.rpc.Status} JSON mapping), reduced to what decides an outcome.
 *
 * @param status the canonical code, e.g. {@code RESOURCE_EXHAUSTED}; empty when absent
 * @param message Google's human message; empty when absent
 * @param reasons every {@code google.rpc.ErrorInfo} reason, e.g. {@code API_KEY_INVALID}
 * @param retryDelay the {@code google.rpc.RetryInfo} delay, when one was given
 */
record GoogleError(
    String status, String message, Set<String> reasons, @Nullable Duration retryDelay) {

  private static final GoogleError NONE = new GoogleError("", "", Set.of(), null);

  GoogleError {
    reasons = Set.copyOf(reasons);
  }

  /** Reads an error body; an empty error when the body is not Google's shape (a proxy's page). */
  static GoogleError parse(ObjectMapper json, String body) {
    JsonNode error;
    try {
      error = json.readTree(body).path("error");
    } catch (JsonProcessingException e) {
      return NONE;
    }
    if (!error.isObject()) {
      return NONE;
    }
    Set<String> reasons = new HashSet<>();
    Duration retryDelay = null;
    for (JsonNode detail : error.path("details")) {
      String type = detail.path("@type").asText("");
      if (type.endsWith("google.rpc.ErrorInfo")) {
        reasons.add(detail.path("reason").asText(""));
      } else if (type.endsWith("google.rpc.RetryInfo")) {
        retryDelay = protobufDuration(detail.path("retryDelay").asText(""));
      }
    }
    return new GoogleError(
        error.path("status").asText(""), error.path("message").asText(""), reasons, retryDelay);
  }

  /** True when Google says the key itself is at fault: unknown, expired or restricted. */
  boolean isKeyProblem() {
    return reasons.stream().anyMatch(reason -> reason.startsWith("API_KEY_"));
  }

  /**
   * A {@code google.protobuf.Duration} in its JSON form: decimal seconds with an {@code s} suffix,
   * up to nine fractional digits ({@code "17s"}, {@code "45.837906927s"}).
   */
  static @Nullable Duration protobufDuration(String text) {
    if (!text.matches("\\d{1,12}(\\.\\d{1,9})?s")) {
      return null;
    }
    BigDecimal seconds = new BigDecimal(text.substring(0, text.length() - 1));
    return ProviderRetryAfter.capped(
        Duration.ofSeconds(
            seconds.longValue(), seconds.remainder(BigDecimal.ONE).movePointRight(9).longValue()));
  }
}
