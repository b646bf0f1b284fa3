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
public final class RetryAfter {

  private RetryAfter() {}

  /** The wait the header asks for, or null when it is absent or malformed. */
  public static @Nullable Duration parse(@Nullable String value) {
    return parse(value, Instant.now());
  }

  /** As {@link #parse(String)}, measuring an HTTP-date from {@code now}. */
  public static @Nullable Duration parse(@Nullable String value, Instant now) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String text = value.trim();
    try {
      long seconds = Long.parseLong(text);
      return seconds >= 0 ? Duration.ofSeconds(seconds) : null;
    } catch (NumberFormatException e) {
      // Not delay-seconds: try an HTTP-date.
    }
    try {
      Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(now, at);
      return wait.isNegative() ? Duration.ZERO : wait;
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
