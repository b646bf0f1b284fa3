package dev.bolo.server.http;

import dev.bolo.server.engine.ClientText;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The request headers a client sets and the gateway reads as values: the {@code Idempotency-Key},
 * the claimed note length and the claimed audio hash. Each either gives a bounded value or refuses
 * the header with {@link MalformedParameterException} (400 {@code invalid_parameter}); no other
 * exception escapes.
 *
 * <p>Stateless and thread safe.
 */
final class RequestHeaders {

  static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  static final String AUDIO_DURATION = "X-Bolo-Audio-Duration-Ms";
  static final String AUDIO_SHA256 = "X-Bolo-Audio-Sha256";

  /** A SHA-256 as hex digits, in either case. */
  static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-fA-F]{64}");

  /** IETF httpapi idempotency-key draft: a short opaque string; we bound it for storage. */
  static final int MAX_IDEMPOTENCY_KEY_CHARS = 255;

  private static final Pattern IDEMPOTENCY_KEY_FORMAT =
      Pattern.compile("[\\x21-\\x7e]{1," + MAX_IDEMPOTENCY_KEY_CHARS + "}");

  /** A claimed length beyond a day is a client bug, not a voice note. */
  static final long MAX_CLAIMED_DURATION_MS = Duration.ofDays(1).toMillis();

  private RequestHeaders() {}

  /**
   * The client's idempotency key: 1 to 255 visible ASCII characters, or null when the header is
   * absent. The IETF idempotency-key draft sends the key as a structured-field string ({@code
   * "abc"}); many clients send it bare. Both name the same key.
   *
   * @throws MalformedParameterException when the header is present but not such a key
   */
  static @Nullable String idempotencyKey(@Nullable String header) {
    if (header == null) {
      return null;
    }
    String value = header.trim();
    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
      value = value.substring(1, value.length() - 1);
    }
    if (!IDEMPOTENCY_KEY_FORMAT.matcher(value).matches()) {
      throw new MalformedParameterException(
          IDEMPOTENCY_KEY,
          "Idempotency-Key must be 1 to "
              + MAX_IDEMPOTENCY_KEY_CHARS
              + " visible ASCII characters");
    }
    return value;
  }

  /**
   * The note's length the client claims, in whole milliseconds from 0 to a day; empty when the
   * header is absent or blank.
   *
   * @throws MalformedParameterException when the header is present but not such a number
   */
  static OptionalLong claimedDurationMs(@Nullable String header) {
    // trim() also drops control characters, which isBlank() does not count as blank.
    String given = header == null ? "" : header.trim();
    if (given.isEmpty()) {
      return OptionalLong.empty();
    }
    // A day is 8 digits; a longer value is refused before parsing and is not echoed back.
    if (given.length() <= 12 && given.chars().allMatch(c -> c >= '0' && c <= '9')) {
      long value = Long.parseLong(given);
      if (value <= MAX_CLAIMED_DURATION_MS) {
        return OptionalLong.of(value);
      }
    }
    throw new MalformedParameterException(
        AUDIO_DURATION,
        AUDIO_DURATION
            + " must be whole milliseconds from 0 to one day: "
            + ClientText.shown(given, 24));
  }

  /**
   * The one value of header {@code name}, or null when absent: two of them (a hash and another
   * hash, two idempotency keys) leave the gateway to guess which the phone meant.
   *
   * @throws MalformedParameterException when the header is given more than once
   */
  static @Nullable String single(io.javalin.http.Context ctx, String name) {
    java.util.Enumeration<String> values = ctx.req().getHeaders(name);
    if (values == null || !values.hasMoreElements()) {
      return null;
    }
    String first = values.nextElement();
    if (values.hasMoreElements()) {
      throw new MalformedParameterException(name, name + " must be given at most once");
    }
    return first;
  }

  /**
   * The audio's SHA-256 the client claims, trimmed, in the case it was sent; null when the header
   * is absent or blank. Whether it matches the audio is the use case's to say.
   *
   * @throws MalformedParameterException when the header is present but not 64 hex digits
   */
  static @Nullable String audioSha256(@Nullable String header) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String trimmed = header.trim();
    if (!HEX_SHA256.matcher(trimmed).matches()) {
      throw new MalformedParameterException(AUDIO_SHA256, AUDIO_SHA256 + " must be 64 hex digits");
    }
    return trimmed;
  }
}
