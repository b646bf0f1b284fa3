package dev.bolo.client;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@code Retry-After} header (RFC 9110 §10.2.3): either delta-seconds or an HTTP-date in
 * any of the three forms a recipient must accept (RFC 9110 §5.6.7).
 */
final class RetryAfter {

  // The day name is dropped before parsing: it is redundant, and checking it would reject an RFC
  // 850
  // date before its two-digit year is put in the right century.

  /** IMF-fixdate, the preferred form: {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

  /** The obsolete RFC 850 form: {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
  private static final DateTimeFormatter RFC_850 =
      DateTimeFormatter.ofPattern("dd-MMM-yy HH:mm:ss 'GMT'", Locale.US);

  /**
   * The obsolete asctime form, after collapsing runs of spaces: {@code Sun Nov 6 08:49:37 1994}.
   */
  private static final DateTimeFormatter ASCTIME =
      DateTimeFormatter.ofPattern("MMM d HH:mm:ss yyyy", Locale.US);

  /**
   * Longer than any sane wait; a larger number or a later date (an HTTP-date may name the year
   * 9999) is treated as this, which no window admits.
   */
  static final Duration MAX = Duration.ofDays(365);

  private static final long MAX_SECONDS = MAX.toSeconds();

  private RetryAfter() {}

  /**
   * The wait {@code value} asks for, measured from {@code now}; zero for a date in the past; null
   * when the header is absent or malformed (and so ignored).
   */
  static @Nullable Duration parse(@Nullable String value, Instant now) {
    if (value == null) {
      return null;
    }
    String trimmed = value.trim();
    if (trimmed.isEmpty()) {
      return null;
    }
    if (isDigits(trimmed)) {
      // delta-seconds = 1*DIGIT; a value too long for a long is simply "very long".
      long seconds = trimmed.length() > 12 ? MAX_SECONDS : Long.parseLong(trimmed);
      return Duration.ofSeconds(Math.min(seconds, MAX_SECONDS));
    }
    Instant date = parseHttpDate(trimmed, now);
    if (date == null) {
      return null;
    }
    Duration wait = Duration.between(now, date);
    if (wait.isNegative()) {
      return Duration.ZERO;
    }
    return wait.compareTo(MAX) > 0 ? MAX : wait;
  }

  private static @Nullable Instant parseHttpDate(String dated, Instant now) {
    // "Sun, " (IMF-fixdate), "Sunday, " (RFC 850) or "Sun " (asctime).
    int comma = dated.indexOf(", ");
    int space = dated.indexOf(' ');
    if (space < 0) {
      return null;
    }
    String value = comma > 0 ? dated.substring(comma + 2) : dated.substring(space + 1);
    try {
      return LocalDateTime.parse(value, IMF_FIXDATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException notImf) {
      // Try the obsolete forms next.
    }
    try {
      Instant date = LocalDateTime.parse(value, RFC_850).toInstant(ZoneOffset.UTC);
      // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future means the last century.
      LocalDateTime limit = LocalDateTime.ofInstant(now, ZoneOffset.UTC).plusYears(50);
      if (date.isAfter(limit.toInstant(ZoneOffset.UTC))) {
        date =
            LocalDateTime.ofInstant(date, ZoneOffset.UTC).minusYears(100).toInstant(ZoneOffset.UTC);
      }
      return date;
    } catch (DateTimeParseException notRfc850) {
      // Try asctime last.
    }
    try {
      return LocalDateTime.parse(value.replaceAll(" +", " "), ASCTIME).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException notAsctime) {
      return null;
    }
  }

  private static boolean isDigits(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
