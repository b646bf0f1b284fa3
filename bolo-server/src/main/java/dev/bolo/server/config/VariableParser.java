package dev.bolo.server.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the text of one {@link Variable} becomes a value. Every refusal is a {@link
 * ServerConfig.ConfigException} whose one line names the variable and, unless it is a secret, the
 * value ({@code "BOLO_PORT must be between 0 and 65535: 70000"}). Immutable.
 */
sealed interface VariableParser {

  /** The longest duration there is: no ceiling. */
  Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

  Text TEXT = new Text();
  Secret SECRET = new Secret();
  Url URL = new Url();

  /** Any positive duration. */
  Span POSITIVE = new Span(Duration.ofNanos(1), FOREVER, "must be positive");

  /** A positive duration of at most a day, so it fits in milliseconds anywhere. */
  Span UP_TO_A_DAY = new Span(Duration.ofNanos(1), Duration.ofDays(1), "must be at most a day");

  /** A wait of zero (do not wait) up to a minute. */
  Span UP_TO_A_MINUTE = new Span(Duration.ZERO, Duration.ofMinutes(1), "must be between 0s and 1m");

  /** The operator's webhook receivers, {@code host:port} each. */
  HostPorts HOST_PORTS = new HostPorts();

  /** Model names: a client's request names one, so 128 characters is plenty. */
  Names MODELS = new Names(128);

  static Whole whole(long min, long max) {
    return new Whole(min, max);
  }

  /** A choice listed and echoed in lower case, as {@code BOLO_ENGINE} and {@code BOLO_STORE}. */
  static <E extends Enum<E>> Choice<E> choice(Class<E> type) {
    return new Choice<>(type, false);
  }

  /** A choice, in lower case, of only the {@code offered} constants of its type. */
  static <E extends Enum<E>> Choice<E> choice(Class<E> type, List<E> offered) {
    return new Choice<>(type, false, offered);
  }

  /** Any text, trimmed. */
  record Text() implements VariableParser {}

  /** A key sent in an HTTP header: printable ASCII without spaces; never echoed. */
  record Secret() implements VariableParser {
    String parse(String name, String value) {
      if (!value.matches("[\\x21-\\x7e]+")) {
        throw new ServerConfig.ConfigException(name + " must be printable ASCII without spaces");
      }
      return value;
    }
  }

  /** An http(s) URL, without a trailing slash. */
  record Url() implements VariableParser {
    String parse(String name, String value) {
      String url = value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
      if (!url.startsWith("http://") && !url.startsWith("https://")) {
        throw new ServerConfig.ConfigException(name + " must be an http(s) URL: " + url);
      }
      return url;
    }
  }

  /** A whole number from {@code min} to {@code max}. */
  record Whole(long min, long max) implements VariableParser {
    public Whole {
      if (min > max) {
        throw new IllegalArgumentException("min must be <= max: " + min + " > " + max);
      }
    }

    long parse(String name, String value) {
      long parsed;
      try {
        parsed = Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new ServerConfig.ConfigException(name + " must be a whole number: " + value);
      }
      if (parsed < min || parsed > max) {
        throw new ServerConfig.ConfigException(
            name + " must be between " + min + " and " + max + ": " + value);
      }
      return parsed;
    }
  }

  /**
   * A duration from {@code floor} to {@code ceiling}. A zero floor admits zero (a wait that may be
   * skipped); any other floor first requires a positive duration.
   *
   * @param refusal the phrase of the message for a duration outside the span, e.g. {@code "must be
   *     at most a day"}
   */
  record Span(Duration floor, Duration ceiling, String refusal) implements VariableParser {
    public Span {
      if (floor.isNegative() || floor.compareTo(ceiling) > 0) {
        throw new IllegalArgumentException("floor must be in 0.." + ceiling + ": " + floor);
      }
    }

    Duration parse(String name, String value) {
      Duration parsed = parseDuration(name, value);
      if (!floor.isZero() && (parsed.isNegative() || parsed.isZero())) {
        throw new ServerConfig.ConfigException(name + " must be positive: " + value);
      }
      if (parsed.compareTo(floor) < 0 || parsed.compareTo(ceiling) > 0) {
        throw new ServerConfig.ConfigException(name + " " + refusal + ": " + value);
      }
      return parsed;
    }
  }

  /** A comma-separated list of durations, each as {@link Span} reads one. */
  record Durations() implements VariableParser {
    List<Duration> parse(String name, String value) {
      List<Duration> durations = new ArrayList<>();
      for (String part : value.split(",", -1)) {
        durations.add(parseDuration(name, part));
      }
      return List.copyOf(durations);
    }
  }

  /** A comma-separated list of model names, blanks and repeats left out. */
  record Names(int maxLength) implements VariableParser {
    List<String> parse(String name, String value) {
      List<String> names = new ArrayList<>();
      for (String part : value.split(",", -1)) {
        String trimmed = part.trim();
        if (trimmed.length() > maxLength) {
          throw new ServerConfig.ConfigException(
              name + " names a model longer than " + maxLength + " characters");
        }
        if (!trimmed.isEmpty() && !names.contains(trimmed)) {
          names.add(trimmed);
        }
      }
      return List.copyOf(names);
    }
  }

  /**
   * A comma-separated list of {@code host:port} (an IPv6 host in brackets), blanks and repeats left
   * out; the port is what tells one receiver of a host from another service on it.
   */
  record HostPorts() implements VariableParser {
    private static final java.util.regex.Pattern HOST_PORT =
        java.util.regex.Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9._-]+):([0-9]{1,5})");

    List<String> parse(String name, String value) {
      List<String> entries = new ArrayList<>();
      for (String part : value.split(",", -1)) {
        String entry = part.trim();
        if (entry.isEmpty() || entries.contains(entry)) {
          continue;
        }
        java.util.regex.Matcher m = HOST_PORT.matcher(entry);
        if (!m.matches()
            || Integer.parseInt(m.group(2)) < 1
            || Integer.parseInt(m.group(2)) > 65535) {
          throw new ServerConfig.ConfigException(
              name + " entries are host:port, such as hooks.internal:8080 or [::1]:9000: " + entry);
        }
        entries.add(entry);
      }
      return List.copyOf(entries);
    }
  }

  /**
   * One of an enum's constants, matched ignoring case.
   *
   * @param upperCase whether the message lists the choices (and echoes the value) in upper case
   * @param offered the constants that may be chosen, in the order the message lists them
   */
  record Choice<E extends Enum<E>>(Class<E> type, boolean upperCase, List<E> offered)
      implements VariableParser {

    /** A choice of every constant of {@code type}. */
    Choice(Class<E> type, boolean upperCase) {
      this(type, upperCase, List.copyOf(java.util.EnumSet.allOf(type)));
    }

    public Choice {
      offered = List.copyOf(offered);
    }

    E parse(String name, String value) {
      for (E constant : offered) {
        if (constant.name().equalsIgnoreCase(value)) {
          return constant;
        }
      }
      List<String> names = new ArrayList<>();
      for (E constant : offered) {
        names.add(upperCase ? constant.name() : constant.name().toLowerCase(Locale.ROOT));
      }
      throw new ServerConfig.ConfigException(
          name
              + " must be one of "
              + String.join(", ", names)
              + ": "
              + (upperCase ? value.toUpperCase(Locale.ROOT) : value));
    }
  }

  /** {@code 10m}, {@code 90s}, {@code 500ms}, {@code 2h}, {@code 1d}; at most 12 digits. */
  Pattern SHORT_DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  /**
   * Parses {@code 10m}, {@code 90s}, {@code 500ms}, {@code 2h}, {@code 1d} or ISO-8601 such as
   * {@code PT10M}.
   *
   * @throws ServerConfig.ConfigException naming {@code name} when the value is not a duration
   */
  static Duration parseDuration(String name, String value) {
    String text = value.trim().toLowerCase(Locale.ROOT);
    Matcher m = SHORT_DURATION.matcher(text);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new ServerConfig.ConfigException(
          name + " must be a duration like 10m, 90s, 500ms or PT10M: " + value.trim());
    }
  }
}
