package dev.bolo.server.config;

import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.ModelAliases;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.engine.route.Routing;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.server.tls.TlsConfig;
import dev.bolo.server.transcription.NotePieces;
import dev.bolo.server.upload.UploadReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Everything the gateway is configured with, read once from the variables {@link Variable} lists
 * and optionally a properties file named by {@code BOLO_CONFIG}; a variable wins over the file.
 * Each part that has a configuration record of its own gets it from here as built: {@link
 * OpenAiConfig}, {@link LedgerConfig}, {@link UploadReader.Bounds}, {@link TlsConfig}. A value that
 * is malformed, out of range or inconsistent with another is a {@link ConfigException} whose
 * one-line message names the variable. Which variable sets which part is {@link ConfigParser}'s
 * business; the parts say what they mean. Immutable; its parts are non-null (NullAway checks the
 * callers).
 *
 * @param openAi the OpenAI-compatible engine, for {@code BOLO_ENGINE=openai} and every
 *     OpenAI-shaped engine of the routes
 * @param gemini the Gemini engine, likewise
 * @param offline the offline engine, alone or as a route's target
 * @param allowedModels the models a device may ask the configured engine for, its default model
 *     first; empty for the offline engine, which has its one model
 * @param ledger devices, quota and usage, with the system clock (the composition root gives it its
 *     own clock and the instance's id)
 * @param limits bounds on what uploads and answers may make the gateway hold
 * @param routing the engines and their routes: several, or the one engine of {@code BOLO_ENGINE} as
 *     a route of one target per model
 * @param webhookHttpHosts {@code BOLO_WEBHOOK_HTTP_HOSTS}: the {@code host:port} webhook receivers
 *     the operator allows over plain http and at any address; empty when none
 * @param telemetry the OpenTelemetry SDK's own {@code OTEL_*} variables as given, for its
 *     autoconfigure (docs/operations/tracing.md); empty when none
 */
public record ServerConfig(
    Listen listen,
    OpenAiConfig openAi,
    Gemini gemini,
    Offline offline,
    List<String> allowedModels,
    ModelAliases modelAliases,
    Store store,
    LedgerConfig ledger,
    Limits limits,
    Deadlines deadlines,
    NotePieces.Config pieces,
    LogLevel logLevel,
    LogFormat logFormat,
    Admin admin,
    Routing routing,
    TlsConfig tls,
    Jobs jobs,
    List<String> webhookHttpHosts,
    Map<String, String> telemetry) {

  public ServerConfig {
    allowedModels = List.copyOf(allowedModels);
    webhookHttpHosts = List.copyOf(webhookHttpHosts);
    telemetry = Map.copyOf(telemetry);
  }

  /** How log events are written to stderr; {@code BOLO_LOG_FORMAT} names one. */
  public enum LogFormat {
    /** One line of text per event, for a person at a terminal. */
    TEXT,
    /** One JSON object per line, for a log collector. */
    JSON
  }

  /** The root log level; {@code BOLO_LOG_LEVEL} names one. */
  public enum LogLevel {
    TRACE,
    DEBUG,
    INFO,
    WARN,
    ERROR
  }

  /**
   * @param retention how long a job is kept after it was made ({@code BOLO_JOB_RETENTION})
   * @param maxQueuedPerDevice how many jobs one device may have waiting
   * @param maxQueuedBytesPerDevice how many bytes of notes one device's waiting jobs may hold
   */
  public record Jobs(Duration retention, int maxQueuedPerDevice, long maxQueuedBytesPerDevice) {}

  /** Where work is coordinated; {@code BOLO_STORE} names one. */
  public enum StoreKind {
    MEMORY,
    REDIS
  }

  /**
   * @param host the address to listen on
   * @param port 0 picks a free port
   * @param drainTimeout on SIGTERM, how long running requests and their engine calls may finish
   * @param headerTimeout a request's headers must arrive within this
   * @param idleTimeout an idle keep-alive connection is closed after this
   */
  public record Listen(
      String host,
      int port,
      Duration drainTimeout,
      Duration headerTimeout,
      Duration idleTimeout,
      Duration warmup) {

    public Listen {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be in 0..65535: " + port);
      }
      requirePositive("drainTimeout", drainTimeout);
      requirePositive("headerTimeout", headerTimeout);
      requirePositive("idleTimeout", idleTimeout);
      if (warmup.isNegative()) {
        throw new IllegalArgumentException("warmup must not be negative: " + warmup);
      }
    }
  }

  /**
   * The operator dashboard at {@code /admin} and its API.
   *
   * @param token the bearer token the dashboard's API requires; null when unset, and then neither
   *     the dashboard nor its API exists
   */
  public record Admin(@Nullable String token) {

    /**
     * Shorter tokens can be guessed by trying: the API answers every guess with a 401 at once.
     * Sixteen characters of a random token are over 64 bits even from a small alphabet.
     */
    public static final int MIN_TOKEN_LENGTH = 16;

    public Admin {
      // The value is a secret: the message gives its length, never the value.
      if (token != null && token.length() < MIN_TOKEN_LENGTH) {
        throw new ConfigException(
            "BOLO_ADMIN_TOKEN must be at least "
                + MIN_TOKEN_LENGTH
                + " characters: it has "
                + token.length());
      }
      if (token != null && !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        throw new ConfigException(
            "BOLO_ADMIN_TOKEN must be printable ASCII without spaces, as an HTTP header carries"
                + " it");
      }
    }

    /** No dashboard. */
    public static Admin none() {
      return new Admin(null);
    }

    public boolean isEnabled() {
      return token != null;
    }

    /** Leaves the token out, so logging the configuration cannot leak it. */
    @Override
    public String toString() {
      return "Admin[enabled=" + isEnabled() + "]";
    }
  }

  /**
   * The Gemini engine's settings; the engine's own {@code GeminiConfig} also needs the shared HTTP
   * client, which only the composition root has.
   *
   * @param baseUrl the API root
   * @param apiKey {@code x-goog-api-key}; required when the engine is Gemini
   * @param model the model used when the client names none
   * @param limits the operator's replacements for Google's documented request limits
   */
  public record Gemini(
      String baseUrl, @Nullable String apiKey, String model, EngineLimits.Overrides limits) {
    public Gemini {}

    @Override
    public String toString() {
      return "Gemini[baseUrl=" + baseUrl + ", model=" + model + "]";
    }
  }

  /**
   * @param maxSeconds the longest note the offline engine takes. Its measured real-time factor on
   *     two cores is up to 1.2 on human speech, so a note of L seconds needs up to 1.2 L s; within
   *     the default engine deadline (120 s + L) that holds up to L = 120 / 0.2 = 600 s. Longer
   *     notes would time out after holding a recogniser, and unbounded ones exhaust the heap while
   *     being decoded.
   */
  public record Offline(long maxSeconds) {
    public Offline {
      if (maxSeconds < 1) {
        throw new IllegalArgumentException("maxSeconds must be >= 1: " + maxSeconds);
      }
    }
  }

  /**
   * @param kind memory or Redis
   * @param redisUrl required for Redis
   * @param redisCaFile the CAs a {@code rediss://} server's certificate must chain to; null for the
   *     JVM's
   * @param idempotencyTtl how long a finished transcript is replayed
   * @param dedupMaxBytes bound on the heap held by replayable transcripts
   * @param lease how long a claim on work lives unless renewed
   */
  public record Store(
      StoreKind kind,
      @Nullable String redisUrl,
      @Nullable Path redisCaFile,
      Duration redisTimeout,
      Duration idempotencyTtl,
      long dedupMaxBytes,
      Duration lease) {
    public Store {
      if (kind == StoreKind.REDIS && redisUrl == null) {
        throw new ConfigException("BOLO_STORE=redis needs BOLO_REDIS_URL");
      }
      requirePositive("redisTimeout", redisTimeout);
      requirePositive("idempotencyTtl", idempotencyTtl);
      if (dedupMaxBytes < 1) {
        throw new IllegalArgumentException("dedupMaxBytes must be >= 1: " + dedupMaxBytes);
      }
      requirePositive("lease", lease);
    }

    /**
     * Where Redis is, trusting {@link #redisCaFile()} over TLS.
     *
     * @throws IllegalStateException if the store is not Redis
     */
    public RedisEndpoint redisEndpoint() {
      if (redisUrl == null) {
        throw new IllegalStateException("the store is not Redis");
      }
      return RedisEndpoint.parse(redisUrl).trusting(redisCaFile);
    }

    /** Leaves the Redis URL out: it may carry a password. */
    @Override
    public String toString() {
      return "Store[kind="
          + kind
          + ", idempotencyTtl="
          + idempotencyTtl
          + ", dedupMaxBytes="
          + dedupMaxBytes
          + ", lease="
          + lease
          + "]";
    }
  }

  /**
   * @param maxUploadBytes the largest accepted note
   * @param inMemoryUploadBytes notes up to this size stay in memory; larger ones spool to disk
   * @param uploads the upload reader's bounds: what bodies being read hold, how slow they may be
   * @param uploadTtl how long a resumable upload lives after its creation
   * @param maxOpenUploadsPerDevice resumable, unfinished
   * @param formerDeviceLimitName whether the deprecated former name of the per-device limits is set
   * @param maxTranscriptBytes the most of a provider's answer the gateway reads; a longer answer is
   *     502 {@code upstream_error}
   * @param answerBudgetBytes provider answer bytes held at once across all notes (an answer larger
   *     than it is read alone)
   * @param maxActiveRequests upload requests served at once; more wait their turn without a thread,
   *     their bodies unread
   * @param requestQueueWait how long such a request waits for its turn before 503 with {@code
   *     Retry-After}
   * @param wrongTokensPerMinute wrong bearer tokens one client address may send a minute before 429
   */
  public record Limits(
      long maxUploadBytes,
      int inMemoryUploadBytes,
      UploadReader.Bounds uploads,
      Duration uploadTtl,
      int maxOpenUploadsPerDevice,
      boolean formerDeviceLimitName,
      long maxTranscriptBytes,
      long answerBudgetBytes,
      int maxActiveRequests,
      Duration requestQueueWait,
      int wrongTokensPerMinute) {

    public Limits {
      requireAtLeastOne("maxUploadBytes", maxUploadBytes);
      if (inMemoryUploadBytes < 0) {
        throw new IllegalArgumentException(
            "inMemoryUploadBytes must be >= 0: " + inMemoryUploadBytes);
      }
      requirePositive("uploadTtl", uploadTtl);
      requireAtLeastOne("maxTranscriptBytes", maxTranscriptBytes);
      requireAtLeastOne("answerBudgetBytes", answerBudgetBytes);
      requireAtLeastOne("maxActiveRequests", maxActiveRequests);
      if (requestQueueWait.isNegative()) {
        throw new IllegalArgumentException("requestQueueWait must be >= 0: " + requestQueueWait);
      }
      requireAtLeastOne("wrongTokensPerMinute", wrongTokensPerMinute);
    }
  }

  /** Reads the configuration from the process environment. */
  public static ServerConfig fromEnvironment() {
    return fromMap(System.getenv());
  }

  /**
   * Reads the configuration from variables; {@code BOLO_CONFIG} may name a properties file whose
   * entries apply where no variable is set.
   *
   * @throws ConfigException with a one-line message naming the variable at fault
   */
  public static ServerConfig fromMap(Map<String, String> variables) {
    return ConfigParser.parse(variables);
  }

  /**
   * Where uploads larger than the in-memory threshold are spooled, one folder per instance slot.
   */
  public Path spoolRoot() {
    return ledger.dataDir().resolve("spool");
  }

  /**
   * Parses {@code 10m}, {@code 90s}, {@code 500ms}, {@code 2h}, {@code 1d} or ISO-8601 such as
   * {@code PT10M}.
   *
   * @throws ConfigException naming {@code name} when the value is not a duration
   */
  public static Duration parseDuration(String name, String value) {
    return VariableParser.parseDuration(name, value);
  }

  private static void requireAtLeastOne(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1: " + value);
    }
  }

  private static void requirePositive(String name, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }

  /** A configuration value that is malformed, out of range or inconsistent with another. */
  public static final class ConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
      super(message);
    }
  }
}
