package dev.bolo.server.http;

import dev.bolo.server.engine.ClientText;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An error answer before it is written in the native or the OpenAI shape. Its message and param are
 * made {@link ClientText#clean} here, whoever built it: the last line of defence that keeps a
 * library's buffer, a provider's page or a client's own control bytes out of every error body.
 *
 * @param status HTTP status
 * @param code stable machine code from PROTOCOL.md, e.g. {@code audio_too_large}
 * @param message plain human sentence; installed apps show it
 * @param param the request parameter at fault, for OpenAI's shape
 * @param retryAfter sent as {@code Retry-After} when known
 */
record ApiError(
    int status,
    String code,
    String message,
    @Nullable String param,
    @Nullable Duration retryAfter) {

  /** A parameter's name: a form field, a header, a tus metadata key. */
  private static final int MOST_PARAM_CHARS = 64;

  ApiError {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    message = ClientText.clean(message, ClientText.MOST_CHARS);
    if (message.isEmpty()) {
      // Nothing readable was left: the code in words is still Bolo's own.
      message = code.replace('_', ' ');
    }
    if (param != null) {
      param = ClientText.clean(param, MOST_PARAM_CHARS);
      param = param.isEmpty() ? null : param;
    }
  }

  ApiError(int status, String code, String message) {
    this(status, code, message, null, null);
  }

  /** OpenAI's error {@code type} for this status. */
  String openAiType() {
    return switch (status) {
      case 401 -> "authentication_error";
      case 402, 429 -> "rate_limit_error";
      case 502, 503, 504 -> "server_error";
      default -> status >= 500 ? "server_error" : "invalid_request_error";
    };
  }
}
