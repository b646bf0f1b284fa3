package dev.bolo.server.http;

import static dev.bolo.server.http.AdmissionLadder.Answer.RATE_LIMITED;
import static dev.bolo.server.http.AdmissionLadder.Answer.SERVER_UNAVAILABLE;
import static dev.bolo.server.http.AdmissionLadder.Answer.UNAUTHORIZED;
import static dev.bolo.server.http.AdmissionLadder.RetryAfter.GIVEN;
import static dev.bolo.server.http.AdmissionLadder.RetryAfter.NONE;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The admission ladder: every check a request that carries a note (a POST of a note, a resumable
 * upload's creation or append) meets before the gateway takes it, in the order it meets them, one
 * rung a line with its refusal (status, code, {@code Retry-After}) and the variables that set it.
 * Every refusal of these checks is made here ({@link #refusal}), so a rung's status and code are
 * written once; each is answered through {@link ErrorWriter#refuseBody}, the body unread and the
 * connection closed after the answer (a rung passed by a route without a body, a lookup say, is
 * answered by {@link ErrorWriter#write} alone). Who checks each rung:
 *
 * <ol>
 *   <li>{@link #REQUESTS_SERVED}: {@link RequestAdmission}, Jetty's line before any route, the body
 *       unread in the socket;
 *   <li>{@link #DRAINING} to {@link #DEVICE_RATE}: {@link DeviceGate}, around every device route;
 *   <li>{@link #DEVICE_BODIES} to {@link #UPLOAD_SLOTS}: {@code upload.UploadAdmission}, when
 *       {@code UploadReader} is about to read a body (after the handler's own checks of the
 *       request: its declared length, an upload's offset);
 *   <li>{@link #OPEN_UPLOADS} and {@link #DEVICE_SPOOL_SHARE}: {@code ResumableUploads}, when a
 *       resumable upload is created;
 *   <li>{@link #SPOOL}: {@code transcription.SpoolHolds} when a resumable upload is created, and
 *       {@code upload.AudioSink} while a POST's note spools (part-way through its body).
 * </ol>
 *
 * <p>Thread safe (constants).
 */
enum AdmissionLadder {
  // rung          answer              Retry-After (s) variables
  REQUESTS_SERVED(SERVER_UNAVAILABLE, 5, "BOLO_MAX_CONCURRENT_REQUESTS BOLO_REQUEST_QUEUE_WAIT"),
  DRAINING(SERVER_UNAVAILABLE, 2, "BOLO_DRAIN_TIMEOUT"),
  TOKEN(UNAUTHORIZED, NONE, "BOLO_DEVICE_TOKENS"),
  WRONG_TOKENS(RATE_LIMITED, GIVEN, "BOLO_WRONG_TOKENS_PER_MINUTE"),
  LEDGER(SERVER_UNAVAILABLE, 5, "BOLO_DATABASE_URL"),
  DEVICE_RATE(RATE_LIMITED, GIVEN, "BOLO_RATE_LIMIT_PER_MINUTE"),
  DEVICE_BODIES(RATE_LIMITED, 2, "BOLO_MAX_BODIES_PER_DEVICE"),
  BYTES_IN_FLIGHT(SERVER_UNAVAILABLE, GIVEN, "BOLO_UPLOAD_BUDGET_BYTES BOLO_UPLOAD_QUEUE_WAIT"),
  UPLOAD_SLOTS(SERVER_UNAVAILABLE, 5, "BOLO_MAX_CONCURRENT_UPLOADS BOLO_UPLOAD_QUEUE_WAIT"),
  OPEN_UPLOADS(RATE_LIMITED, 5, "BOLO_MAX_OPEN_UPLOADS_PER_DEVICE"),
  DEVICE_SPOOL_SHARE(RATE_LIMITED, 5, "BOLO_SPOOL_MAX_BYTES"),
  SPOOL(SERVER_UNAVAILABLE, 5, "BOLO_SPOOL_MAX_BYTES");

  /** The three answers a rung refuses with: a status and its code (PROTOCOL.md's error table). */
  enum Answer {
    /** No known token: resending cannot help until the client has one. */
    UNAUTHORIZED(401, "unauthorized"),
    /** The device, or the client's address, asks too much; after the wait it may again. */
    RATE_LIMITED(429, "rate_limited"),
    /** The gateway itself cannot take the request now; a resend may succeed. */
    SERVER_UNAVAILABLE(503, "server_unavailable");

    private final int status;
    private final String code;

    Answer(int status, String code) {
      this.status = status;
      this.code = code;
    }
  }

  /** The two {@code Retry-After}s that are not a number of seconds. */
  static final class RetryAfter {
    /** The refusal carries none: resending cannot help until the client changes something. */
    static final int NONE = 0;

    /** The check says when ({@link #refusal(String, Duration)}): the limiter's minute, a wait. */
    static final int GIVEN = -1;

    private RetryAfter() {}
  }

  private final Answer answer;
  private final int retryAfterSeconds;
  private final List<String> variables;

  AdmissionLadder(Answer answer, int retryAfterSeconds, String variables) {
    this.answer = answer;
    this.retryAfterSeconds = retryAfterSeconds;
    this.variables = List.of(variables.split(" "));
  }

  /** The status this rung refuses with. */
  int status() {
    return answer.status;
  }

  /** The error code this rung refuses with. */
  String code() {
    return answer.code;
  }

  /**
   * The fixed {@code Retry-After} of this rung's refusals; null when it has none or when the check
   * gives it ({@link #givesRetryAfter()}).
   */
  @Nullable Duration retryAfter() {
    return retryAfterSeconds > 0 ? Duration.ofSeconds(retryAfterSeconds) : null;
  }

  /** Whether the check says when to come back, each time ({@link #refusal(String, Duration)}). */
  boolean givesRetryAfter() {
    return retryAfterSeconds == GIVEN;
  }

  /** The configuration variables that set this rung. */
  List<String> variables() {
    return variables;
  }

  /**
   * This rung's refusal, with its fixed {@code Retry-After}.
   *
   * @throws IllegalStateException when the check must say when to come back
   */
  ApiError refusal(String message) {
    if (givesRetryAfter()) {
      throw new IllegalStateException(name() + " refuses with the Retry-After its check gives");
    }
    return new ApiError(answer.status, answer.code, message, null, retryAfter());
  }

  /**
   * This rung's refusal, coming back after {@code retryAfter} as its check says.
   *
   * @throws IllegalStateException when the rung's {@code Retry-After} is fixed or none
   */
  ApiError refusal(String message, Duration retryAfter) {
    if (!givesRetryAfter()) {
      throw new IllegalStateException(name() + " refuses with its own Retry-After");
    }
    return new ApiError(answer.status, answer.code, message, null, retryAfter);
  }
}
