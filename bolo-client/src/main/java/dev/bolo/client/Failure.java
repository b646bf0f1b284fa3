package dev.bolo.client;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Why one attempt did not produce a transcript. Whether it is resent is {@link ResendPolicy}'s
 * call.
 */
public sealed interface Failure {

  /**
   * A short human description, such as {@code "HTTP 503 upstream_unavailable"} or {@code
   * "timeout"}.
   */
  String reason();

  /** What went wrong below HTTP. */
  enum NetworkKind {
    /** The connection could not be made or broke during the exchange. */
    CONNECTION,
    /** The gateway's host name did not resolve. */
    UNKNOWN_HOST,
    /** A connect, read or write timed out. */
    TIMEOUT,
    /** TLS failed (an untrusted or mismatched certificate); resending cannot fix it. */
    TLS,
    /** The peer did not speak HTTP as expected; resending cannot fix it. */
    PROTOCOL
  }

  /**
   * No HTTP answer was received.
   *
   * @param kind what went wrong
   * @param detail the underlying exception's type and message
   */
  record Network(NetworkKind kind, String detail) implements Failure {
    public Network {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String reason() {
      return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + detail;
    }
  }

  /**
   * The gateway (or a proxy in front of it) answered with an error status, or with a success it
   * could not be understood.
   *
   * @param status the HTTP status
   * @param code the gateway's machine-readable {@code code}, null when the body had none (a proxy's
   *     page, for example)
   * @param message the gateway's {@code error} message, or a description of the status
   * @param requestId the request id the gateway logged, when it said
   * @param retryAfter the wait the {@code Retry-After} header asked for, when present and valid
   */
  record Http(
      int status,
      @Nullable String code,
      String message,
      @Nullable String requestId,
      @Nullable Duration retryAfter)
      implements Failure {
    public Http {
      Objects.requireNonNull(message, "message");
      if (status < 100 || status > 999) {
        throw new IllegalArgumentException("status must be a 3-digit HTTP status: " + status);
      }
    }

    @Override
    public String reason() {
      return "HTTP " + status + (code == null ? "" : " " + code);
    }
  }
}
