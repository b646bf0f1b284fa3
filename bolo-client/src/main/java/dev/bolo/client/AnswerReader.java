package dev.bolo.client;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Reads the gateway's answers: a transcript, or the error it stands for, with the gateway's {@code
 * code}, message, request id and {@code Retry-After}. Bodies are read only up to {@link
 * #MAX_BODY_BYTES}. Stateless.
 */
final class AnswerReader {

  /** Error bodies and transcripts are small; a larger body is not the gateway's. */
  static final long MAX_BODY_BYTES = 1024 * 1024;

  private AnswerReader() {}

  /**
   * Turns an answer into a result; reading the body may still fail like the exchange itself.
   *
   * @param notTranscript what a success was instead of a transcript, when the caller knows
   */
  static Resender.AttemptResult resultOf(
      Response response, @Nullable String notTranscript, Clock clock) throws IOException {
    int status = response.code();
    // OkHttp accepts any three digits; a status below 100 is not HTTP as the gateway speaks it.
    if (status < 100) {
      return new Resender.Failed(
          new Failure.Network(Failure.NetworkKind.PROTOCOL, "invalid HTTP status " + status));
    }
    Map<?, ?> json = bodyOf(response);
    if (status >= 200 && status < 300) {
      Transcript transcript = json == null ? null : transcriptFrom(json);
      if (transcript != null) {
        return new Resender.Succeeded(transcript);
      }
      return new Resender.Failed(
          new Failure.Http(
              status,
              "invalid_response",
              notTranscript != null ? notTranscript : "the gateway's answer is not a transcript",
              null,
              null));
    }
    return new Resender.Failed(errorOf(response, json, clock));
  }

  /** An error answer as a failure: its code, message, request id and {@code Retry-After}. */
  static Failure.Http errorOf(Response response, @Nullable Map<?, ?> json, Clock clock) {
    return new Failure.Http(
        response.code(),
        json == null ? null : Json.string(json, "code"),
        errorMessage(response, json),
        json == null ? response.header("X-Bolo-Request-Id") : Json.string(json, "request_id"),
        retryAfter(response, clock));
  }

  /** The answer's {@code Retry-After} as a wait, when present and valid. */
  static @Nullable Duration retryAfter(Response response, Clock clock) {
    return RetryAfter.parse(response.header("Retry-After"), clock.instant());
  }

  /** The answer's body as a JSON object, or null when it is not one. */
  static @Nullable Map<?, ?> bodyOf(Response response) throws IOException {
    return parseObject(response.peekBody(MAX_BODY_BYTES).string());
  }

  static @Nullable Map<?, ?> parseObject(String body) {
    try {
      Object value = Json.parse(body);
      return value instanceof Map<?, ?> object ? object : null;
    } catch (IllegalArgumentException notJson) {
      return null;
    }
  }

  static @Nullable Transcript transcriptFrom(Map<?, ?> json) {
    String text = Json.string(json, "text");
    if (text == null) {
      return null;
    }
    Object duration = json.get("duration_ms");
    return new Transcript(
        text,
        Boolean.TRUE.equals(json.get("deduplicated")),
        orEmpty(Json.string(json, "audio_sha256")),
        duration instanceof Number number ? number.longValue() : null,
        orEmpty(Json.string(json, "request_id")),
        orEmpty(Json.string(json, "engine")));
  }

  private static String errorMessage(Response response, @Nullable Map<?, ?> json) {
    if (json != null) {
      Object error = json.get("error");
      if (error instanceof String message) {
        return message;
      }
      // The OpenAI-compatible shape, should a base URL point there.
      String nested = error instanceof Map<?, ?> object ? Json.string(object, "message") : null;
      if (nested != null) {
        return nested;
      }
    }
    String reason = response.message();
    return "HTTP " + response.code() + (reason.isEmpty() ? "" : " " + reason);
  }

  private static String orEmpty(@Nullable String value) {
    return value == null ? "" : value;
  }
}
