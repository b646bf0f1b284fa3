package dev.bolo.server;

import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.ledger.LedgerConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Everything the gateway is configured with, read once from environment variables (PROTOCOL.md
 * lists them) and optionally a config file named by {@code BOLO_CONFIG}; a variable wins over the
 * file. Immutable.
 */
public record ServerConfig(
    String host,
    int port,
    String engine,
    String openAiBaseUrl,
    @Nullable String openAiApiKey,
    String openAiModel,
    String openAiDefaultLanguage,
    String geminiBaseUrl,
    @Nullable String geminiApiKey,
    String geminiModel,
    Duration idempotencyTtl,
    long dedupMaxBytes,
    String store,
    @Nullable String redisUrl,
    @Nullable String databaseUrl,
    Path dataDir,
    Map<String, String> deviceTokens,
    long maxUploadBytes,
    int inMemoryUploadBytes,
    long trialSeconds,
    int rateLimitPerMinute,
    Duration upstreamTimeout,
    Duration upstreamTimeoutMax,
    Duration lease) {

  public ServerConfig {
    Objects.requireNonNull(host, "host");
    deviceTokens = Map.copyOf(deviceTokens);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("BOLO_PORT must be 0..65535: " + port);
    }
    if (maxUploadBytes <= 0) {
      throw new IllegalArgumentException(
          "BOLO_MAX_UPLOAD_BYTES must be positive: " + maxUploadBytes);
    }
    if (trialSeconds < 0) {
      throw new IllegalArgumentException("BOLO_TRIAL_SECONDS must be >= 0: " + trialSeconds);
    }
    if (!engine.equals("offline") && !engine.equals("openai") && !engine.equals("gemini")) {
      throw new IllegalArgumentException(
          "BOLO_ENGINE must be offline, openai or gemini: " + engine);
    }
    if (!store.equals("memory") && !store.equals("redis")) {
      throw new IllegalArgumentException("BOLO_STORE must be memory or redis: " + store);
    }
    if (store.equals("redis") && redisUrl == null) {
      throw new IllegalArgumentException("BOLO_STORE=redis needs BOLO_REDIS_URL");
    }
  }

  /** Reads the configuration from the process environment. */
  public static ServerConfig fromEnvironment() {
    return fromMap(System.getenv());
  }

  /**
   * Reads the configuration from variables; {@code BOLO_CONFIG} may name a properties file whose
   * entries apply where no variable is set.
   */
  public static ServerConfig fromMap(Map<String, String> variables) {
    Map<String, String> merged = new HashMap<>();
    String file = variables.get("BOLO_CONFIG");
    if (file != null && !file.isBlank()) {
      merged.putAll(readFile(Path.of(file)));
    }
    merged.putAll(variables);
    return parse(new Env(merged));
  }

  private static ServerConfig parse(Env env) {
    Path dataDir = Path.of(env.get("BOLO_DATA_DIR", "bolo-data"));
    return new ServerConfig(
        env.get("BOLO_HOST", "127.0.0.1"),
        env.integer("BOLO_PORT", 8080),
        env.get("BOLO_ENGINE", "offline").toLowerCase(Locale.ROOT),
        stripSlash(env.get("BOLO_OPENAI_BASE_URL", "https://api.openai.com/v1")),
        env.optional("BOLO_OPENAI_API_KEY"),
        env.get("BOLO_OPENAI_MODEL", "whisper-1"),
        env.get("BOLO_OPENAI_LANGUAGE", ""),
        stripSlash(env.get("BOLO_GEMINI_BASE_URL", GeminiConfig.DEFAULT_BASE_URL)),
        env.optional("BOLO_GEMINI_API_KEY"),
        env.get("BOLO_GEMINI_MODEL", GeminiConfig.DEFAULT_MODEL),
        env.duration("BOLO_IDEMPOTENCY_TTL", Duration.ofMinutes(10)),
        env.longValue("BOLO_DEDUP_MAX_BYTES", 64L * 1024 * 1024),
        env.get("BOLO_STORE", "memory").toLowerCase(Locale.ROOT),
        env.optional("BOLO_REDIS_URL"),
        env.optional("BOLO_DATABASE_URL"),
        dataDir,
        LedgerConfig.parseDeviceTokens(env.get("BOLO_DEVICE_TOKENS", "")),
        env.longValue("BOLO_MAX_UPLOAD_BYTES", 26_214_400L),
        env.integer("BOLO_UPLOAD_MEMORY_BYTES", 1024 * 1024),
        env.longValue("BOLO_TRIAL_SECONDS", 0),
        env.integer("BOLO_RATE_LIMIT_PER_MINUTE", 0),
        env.duration("BOLO_UPSTREAM_TIMEOUT", Duration.ofSeconds(30)),
        env.duration("BOLO_UPSTREAM_TIMEOUT_MAX", Duration.ofSeconds(120)),
        env.duration("BOLO_LEASE", Duration.ofSeconds(15)));
  }

  /** Where uploads larger than the in-memory threshold are spooled. */
  public Path spoolDir() {
    return dataDir.resolve("spool");
  }

  /**
   * The ledger's part of this configuration.
   *
   * @param clock wall time for the ledger's rows
   * @param ticker elapsed nanoseconds for the rate limiter
   */
  public LedgerConfig ledgerConfig(Clock clock, LongSupplier ticker) {
    return LedgerConfig.embedded(dataDir)
        .withJdbcUrl(databaseUrl)
        .withStaticTokens(deviceTokens)
        .withTrialSeconds(trialSeconds)
        .withRequestsPerMinute(rateLimitPerMinute)
        .withClock(clock, ticker);
  }

  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  /**
   * Parses {@code 10m}, {@code 90s}, {@code 500ms}, {@code 2h}, {@code 1d} or ISO-8601 such as
   * {@code PT10M}.
   */
  public static Duration parseDuration(String name, String value) {
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
      throw new IllegalArgumentException(
          name + " must be a duration like 10m, 90s, 500ms or PT10M: " + value, e);
    }
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static Map<String, String> readFile(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read BOLO_CONFIG file " + file + ": " + e, e);
    }
    Map<String, String> values = new HashMap<>();
    properties.forEach((k, v) -> values.put(k.toString(), v.toString()));
    return values;
  }

  /** Typed look-ups with messages that name the variable. */
  private record Env(Map<String, String> values) {
    String get(String name, String fallback) {
      String value = values.get(name);
      return value == null || value.isBlank() ? fallback : value.trim();
    }

    @Nullable String optional(String name) {
      String value = values.get(name);
      return value == null || value.isBlank() ? null : value.trim();
    }

    int integer(String name, int fallback) {
      return (int) longValue(name, fallback);
    }

    long longValue(String name, long fallback) {
      String value = optional(name);
      if (value == null) {
        return fallback;
      }
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be a whole number: " + value, e);
      }
    }

    Duration duration(String name, Duration fallback) {
      String value = optional(name);
      return value == null ? fallback : parseDuration(name, value);
    }
  }
}
