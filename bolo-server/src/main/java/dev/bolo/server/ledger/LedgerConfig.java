package dev.bolo.server.ledger;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * How to open a database-backed {@link Ledger}. Immutable.
 *
 * @param jdbcUrl {@code jdbc:postgresql://...} or {@code jdbc:sqlite:...}; null for the embedded
 *     SQLite file {@value #EMBEDDED_FILE_NAME} under {@code dataDir}
 * @param dataDir where embedded state lives ({@code BOLO_DATA_DIR})
 * @param staticTokens devices configured by {@code BOLO_DEVICE_TOKENS}, token by device name. They
 *     authenticate alongside the ledger's own devices and are otherwise ordinary devices: they get
 *     the default trial quota unless overridden, their usage is recorded, and revoking one in the
 *     ledger stops its configured token too.
 * @param trialSeconds audio seconds each device may have transcribed unless overridden per device;
 *     0 = unlimited ({@code BOLO_TRIAL_SECONDS})
 * @param requestsPerMinute per-device rate limit; 0 = off
 * @param chargeWindow a piece of work is charged at most once per device within this window (the
 *     replay TTL, PROTOCOL.md rule 8)
 * @param usageRetention usage rows and charges older than this (counted back to the start of its
 *     UTC day) are rolled up into per-device daily totals ({@code BOLO_USAGE_RETENTION}); at least
 *     a day and at least the charge window, whose charges must stay in the charge log
 * @param instanceId the gateway instance that holds quota through this ledger, so that its holds
 *     can be dropped when it restarts after a crash; null for operator commands, which hold none
 * @param migrationUrl where the schema is migrated when not {@code jdbcUrl}: the database server
 *     itself when {@code jdbcUrl} is a pooler's ({@code BOLO_DATABASE_MIGRATION_URL}); null for
 *     {@code jdbcUrl}
 */
public record LedgerConfig(
    @Nullable String jdbcUrl,
    Path dataDir,
    Map<String, String> staticTokens,
    long trialSeconds,
    int requestsPerMinute,
    Duration chargeWindow,
    Duration usageRetention,
    @Nullable String instanceId,
    @Nullable String migrationUrl) {

  /** The default {@code BOLO_USAGE_RETENTION}. */
  public static final Duration DEFAULT_USAGE_RETENTION = Duration.ofDays(90);

  /** Usage is rolled up by whole UTC days: a shorter retention would roll up today. */
  public static final Duration MIN_USAGE_RETENTION = Duration.ofDays(1);

  /** A century: far beyond any need, and its milliseconds never overflow a {@code long}. */
  public static final Duration MAX_USAGE_RETENTION = Duration.ofDays(36_500);

  /** The embedded database's file name under the data directory. */
  public static final String EMBEDDED_FILE_NAME = "bolo-ledger.db";

  /** The default replay TTL, {@code BOLO_IDEMPOTENCY_TTL}. */
  public static final Duration DEFAULT_CHARGE_WINDOW = Duration.ofMinutes(10);

  public LedgerConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    staticTokens.forEach(
        (name, token) -> {
          if (!Device.isValidName(name) || token.isBlank()) {
            throw new IllegalArgumentException(
                "static device needs a valid name and a token: " + name);
          }
        });
    staticTokens = Map.copyOf(staticTokens);
    if (trialSeconds < 0) {
      throw new IllegalArgumentException("trialSeconds must be >= 0: " + trialSeconds);
    }
    if (requestsPerMinute < 0) {
      throw new IllegalArgumentException("requestsPerMinute must be >= 0: " + requestsPerMinute);
    }
    if (chargeWindow.isNegative() || chargeWindow.isZero()) {
      throw new IllegalArgumentException("chargeWindow must be positive: " + chargeWindow);
    }
    if (usageRetention.compareTo(MIN_USAGE_RETENTION) < 0
        || usageRetention.compareTo(MAX_USAGE_RETENTION) > 0) {
      throw new IllegalArgumentException(
          "usageRetention must be between 1 and 36500 days: " + usageRetention);
    }
    // The charge log is rolled up with the usage: it must still hold every charge of the window.
    if (usageRetention.compareTo(chargeWindow) < 0) {
      throw new IllegalArgumentException(
          "usageRetention must be at least the charge window "
              + chargeWindow
              + ": "
              + usageRetention);
    }
  }

  /** The embedded database under {@code dataDir}: no static devices, no quota, no rate limit. */
  public static LedgerConfig embedded(Path dataDir) {
    return new LedgerConfig(
        null, dataDir, Map.of(), 0, 0, DEFAULT_CHARGE_WINDOW, DEFAULT_USAGE_RETENTION, null, null);
  }

  /**
   * Parses {@code name=token,name2=token2}; blank entries are ignored. A token of fewer than {@link
   * Tokens#MIN_BITS} bits by {@link Tokens#estimatedBits} is refused, its device named and the
   * token left out of the message.
   */
  public static Map<String, String> parseDeviceTokens(String spec) {
    Map<String, String> tokens = new LinkedHashMap<>();
    for (String entry : spec.split(",", -1)) {
      if (entry.isBlank()) {
        continue;
      }
      int eq = entry.indexOf('=');
      String name = eq < 0 ? entry.trim() : entry.substring(0, eq).trim();
      String token = eq < 0 ? "" : entry.substring(eq + 1).trim();
      // The token is deliberately left out of the message: messages end up in logs.
      if (!Device.isValidName(name) || token.isEmpty()) {
        throw new IllegalArgumentException(
            "BOLO_DEVICE_TOKENS entries must be name=token; bad entry for device: " + name);
      }
      if (tokens.put(name, token) != null) {
        throw new IllegalArgumentException("BOLO_DEVICE_TOKENS names a device twice: " + name);
      }
      int bits = Tokens.estimatedBits(token);
      // A weak token is found by guessing, however slowly the gateway answers wrong ones.
      if (bits < Tokens.MIN_BITS) {
        throw new IllegalArgumentException(
            "BOLO_DEVICE_TOKENS: the token of device "
                + name
                + " is too easy to guess (about "
                + bits
                + " bits, at least "
                + Tokens.MIN_BITS
                + " needed): use 32 or more random characters, e.g. from openssl rand -hex 24");
      }
    }
    return tokens;
  }

  /** The JDBC URL to connect to: the given one, or the embedded SQLite file under the data dir. */
  public String effectiveJdbcUrl() {
    return jdbcUrl != null
        ? jdbcUrl
        : "jdbc:sqlite:" + dataDir.resolve(EMBEDDED_FILE_NAME).toAbsolutePath();
  }

  public LedgerConfig withJdbcUrl(@Nullable String url) {
    return with(copy -> copy.jdbcUrl = url);
  }

  public LedgerConfig withStaticTokens(Map<String, String> tokens) {
    return with(copy -> copy.staticTokens = tokens);
  }

  public LedgerConfig withTrialSeconds(long seconds) {
    return with(copy -> copy.trialSeconds = seconds);
  }

  public LedgerConfig withRequestsPerMinute(int perMinute) {
    return with(copy -> copy.requestsPerMinute = perMinute);
  }

  public LedgerConfig withChargeWindow(Duration window) {
    return with(copy -> copy.chargeWindow = window);
  }

  /** Usage older than {@code retention} is rolled up into daily totals. */
  public LedgerConfig withUsageRetention(Duration retention) {
    return with(copy -> copy.usageRetention = retention);
  }

  /** The schema migrated through {@code url} (the server behind a pooler), when given. */
  public LedgerConfig withMigrationUrl(@Nullable String url) {
    return with(copy -> copy.migrationUrl = url);
  }

  /** The ledger of a gateway instance whose quota holds carry {@code id}. */
  public LedgerConfig withInstanceId(@Nullable String id) {
    return with(copy -> copy.instanceId = id);
  }

  /** {@link #trialSeconds} in milliseconds, as the ledger counts quota. */
  long trialMillis() {
    return Math.multiplyExact(trialSeconds, 1000L);
  }

  /** A configuration like this one but for what {@code change} sets; validated like any other. */
  private LedgerConfig with(Consumer<Copy> change) {
    Copy copy = new Copy(this);
    change.accept(copy);
    return copy.build();
  }

  /** The components of a {@link LedgerConfig}, for a wither to change before it builds anew. */
  private static final class Copy {
    @Nullable String jdbcUrl;
    Path dataDir;
    Map<String, String> staticTokens;
    long trialSeconds;
    int requestsPerMinute;
    Duration chargeWindow;
    Duration usageRetention;
    @Nullable String instanceId;
    @Nullable String migrationUrl;

    Copy(LedgerConfig from) {
      jdbcUrl = from.jdbcUrl;
      dataDir = from.dataDir;
      staticTokens = from.staticTokens;
      trialSeconds = from.trialSeconds;
      requestsPerMinute = from.requestsPerMinute;
      chargeWindow = from.chargeWindow;
      usageRetention = from.usageRetention;
      instanceId = from.instanceId;
      migrationUrl = from.migrationUrl;
    }

    LedgerConfig build() {
      return new LedgerConfig(
          jdbcUrl,
          dataDir,
          staticTokens,
          trialSeconds,
          requestsPerMinute,
          chargeWindow,
          usageRetention,
          instanceId,
          migrationUrl);
    }
  }

  /** Never prints the static tokens. */
  @Override
  public String toString() {
    return "LedgerConfig[jdbcUrl="
        + redacted(jdbcUrl)
        + ", dataDir="
        + dataDir
        + ", staticDevices="
        + staticTokens.keySet()
        + ", trialSeconds="
        + trialSeconds
        + ", requestsPerMinute="
        + requestsPerMinute
        + ", chargeWindow="
        + chargeWindow
        + ", usageRetention="
        + usageRetention
        + ", instanceId="
        + instanceId
        + "]";
  }

  /** Drops a URL's parameters and user info: they may carry a password. */
  public static @Nullable String redactedUrl(@Nullable String url) {
    return redacted(url);
  }

  static @Nullable String redacted(@Nullable String url) {
    if (url == null) {
      return null;
    }
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query) + "?...";
  }
}
