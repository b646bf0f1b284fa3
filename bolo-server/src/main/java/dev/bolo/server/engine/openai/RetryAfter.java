package dev.bolo.server.engine.openai;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/** Parses {@code Retry-After} in both forms of RFC 9110 §10.2.3: delay-seconds and HTTP-date. */
final class RetryAfter {

  private RetryAfter() {}

  static @Nullable Duration parse(@Nullable String value) {
    return parse(value, Instant.now());
  }

  static @Nullable Duration parse(@Nullable String value, Instant now) {
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
