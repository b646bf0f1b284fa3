package dev.bolo.server.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/**
 * Parses a provider's {@code Retry-After} in both forms of RFC 9110 §10.2.3: delay-seconds and
 * HTTP-date. Stateless.
 */
public final class ProviderRetryAfter {

  /**
   * The longest wait believed: a provider (or a proxy in its place) asking for more would park
   * phones for days, and a huge value would overflow {@code Duration.toMillis()} downstream.
   */
  public static final Duration MAX = Duration.ofHours(1);

  /** An HTTP-date is 29 characters; anything much longer is not a Retry-After. */
  private static final int MAX_CHARS = 64;

  private ProviderRetryAfter() {}

  /**
   * The wait a header that passed {@link AnswerLimit} asks for: by then an HTTP-date has been
   * measured from the moment its answer arrived and the header is delay-seconds, at most {@link
   * #MAX}. Null when absent or malformed.
   */
  public static @Nullable Duration parseSafe(@Nullable String value) {
    if (value == null) {
      return null;
    }
    String text = value.trim();
    return text.length() <= MAX_CHARS && DIGITS.matcher(text).matches() ? delaySeconds(text) : null;
  }

  /**
   * The wait the header asks for, an HTTP-date measured from {@code now}, at most {@link #MAX}, or
   * null when absent or malformed.
   */
  public static @Nullable Duration parse(@Nullable String value, Instant now) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String text = value.trim();
    if (text.length() > MAX_CHARS) {
      return null;
    }
    if (DIGITS.matcher(text).matches()) {
      return delaySeconds(text);
    }
    try {
      Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(now, at);
      return wait.isNegative() ? Duration.ZERO : capped(wait);
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /** Delay-seconds of any length: more digits than an hour has are simply the cap. */
  private static Duration delaySeconds(String digits) {
    return digits.length() > 9 ? MAX : capped(Duration.ofSeconds(Long.parseLong(digits)));
  }

  /** {@code wait}, or {@link #MAX} when it is longer. */
  public static Duration capped(Duration wait) {
    return wait.compareTo(MAX) > 0 ? MAX : wait;
  }

  private static final java.util.regex.Pattern DIGITS = java.util.regex.Pattern.compile("\\d+");
}
