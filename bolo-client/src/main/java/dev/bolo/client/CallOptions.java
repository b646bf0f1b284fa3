package dev.bolo.client;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the client handles one note, where it should differ from the client's own settings: another
 * resend policy, a fixed timeout for each attempt, a listener for this note only, or an idempotency
 * key the app chose (to resend a note after the app restarted). Immutable.
 *
 * @param policy replaces the client's policy for this note; null keeps it
 * @param attemptTimeout each attempt's read and write timeout, instead of the one scaled to the
 *     note's length; null keeps the scaled one
 * @param listener receives this note's events, after the client's listener; null for none
 * @param idempotencyKey the note's {@code Idempotency-Key}; null for a fresh random one
 */
public record CallOptions(
    @Nullable ResendPolicy policy,
    @Nullable Duration attemptTimeout,
    @Nullable TranscriptionListener listener,
    @Nullable String idempotencyKey) {

  private static final CallOptions DEFAULTS = new CallOptions(null, null, null, null);

  /** The longest key accepted; the gateway's keys are UUIDs. */
  static final int MAX_KEY_LENGTH = 200;

  public CallOptions {
    if (attemptTimeout != null && (attemptTimeout.isNegative() || attemptTimeout.isZero())) {
      throw new IllegalArgumentException("attemptTimeout must be positive: " + attemptTimeout);
    }
    // An sf-string (IETF idempotency-key draft, RFC 8941): printable ASCII, no quote or backslash.
    if (idempotencyKey != null
        && (idempotencyKey.isEmpty()
            || idempotencyKey.length() > MAX_KEY_LENGTH
            || idempotencyKey
                .chars()
                .anyMatch(c -> c < 0x20 || c > 0x7e || c == '"' || c == '\\'))) {
      throw new IllegalArgumentException(
          "idempotencyKey must be 1 to "
              + MAX_KEY_LENGTH
              + " printable ASCII characters without quotes or backslashes: '"
              + idempotencyKey
              + "'");
    }
  }

  /** Nothing differs from the client's settings. */
  public static CallOptions defaults() {
    return DEFAULTS;
  }

  /** These options with another resend policy. */
  public CallOptions withPolicy(ResendPolicy policy) {
    return new CallOptions(
        Objects.requireNonNull(policy, "policy"), attemptTimeout, listener, idempotencyKey);
  }

  /** These options with a fixed read and write timeout for each attempt. */
  public CallOptions withAttemptTimeout(Duration attemptTimeout) {
    return new CallOptions(
        policy, Objects.requireNonNull(attemptTimeout, "attemptTimeout"), listener, idempotencyKey);
  }

  /** These options with a listener for this note's events. */
  public CallOptions withListener(TranscriptionListener listener) {
    return new CallOptions(
        policy, attemptTimeout, Objects.requireNonNull(listener, "listener"), idempotencyKey);
  }

  /** These options with the app's own idempotency key for the note. */
  public CallOptions withIdempotencyKey(String idempotencyKey) {
    return new CallOptions(
        policy, attemptTimeout, listener, Objects.requireNonNull(idempotencyKey, "key"));
  }
}
