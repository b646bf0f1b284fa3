package dev.bolo.server;

import dev.bolo.server.audio.UploadReader;
import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.UpstreamTimeout;
import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.transcription.Transcriber;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
 * lists them) and optionally a properties file named by {@code BOLO_CONFIG}; a variable wins over
 * the file. Every check lives in {@link #fromMap}: a value that is malformed, out of range or
 * inconsistent with another is a {@link ConfigException} whose one-line message names the variable.
 * Immutable.
 *
 * @param listen where the gateway listens and how it stops
 * @param engine which engine transcribes
 * @param openAi the OpenAI-compatible engine's settings (used when {@code engine} is OPENAI)
 * @param gemini the Gemini engine's settings (used when {@code engine} is GEMINI)
 * @param offline the offline engine's settings (used when {@code engine} is OFFLINE)
 * @param store where in-flight and finished work is coordinated
 * @param ledger devices, quota and usage
 * @param limits bounds on what one upload may make the gateway hold
 * @param deadlines how long the engine may take for one note
 * @param logLevel the root log level, {@code BOLO_LOG_LEVEL}
 * @param logFormat one line of text or one JSON object per log event, {@code BOLO_LOG_FORMAT}
 * @param admin the operator dashboard, {@code BOLO_ADMIN_TOKEN}
 */
public record ServerConfig(
    Listen listen,
    EngineKind engine,
    OpenAi openAi,
    Gemini gemini,
    Offline offline,
    Store store,
    LedgerSettings ledger,
    Limits limits,
    Deadlines deadlines,
    String logLevel,
    LogFormat logFormat,
    Admin admin) {

  /** How log events are written to stderr; {@code BOLO_LOG_FORMAT} names one. */
  public enum LogFormat {
    /** One line of text per event, for a person at a terminal. */
    TEXT,
    /** One JSON object per line, for a log collector. */
    JSON
  }

  /** The engines a gateway can run; {@code BOLO_ENGINE} names one. */
  public enum EngineKind {
    OFFLINE,
    OPENAI,
    GEMINI;

    /** The name in {@code BOLO_ENGINE}, settings and responses. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Where work is coordinated; {@code BOLO_STORE} names one. */
  public enum StoreKind {
    MEMORY,
    REDIS
  }

  /**
   * @param host {@code BOLO_HOST}
   * @param port {@code BOLO_PORT}; 0 picks a free port
   * @param drainTimeout {@code BOLO_DRAIN_TIMEOUT}: on SIGTERM, how long running requests and their
   *     engine calls may finish
   */
  public record Listen(
      String host,
      int port,
      Duration drainTimeout,
      Duration headerTimeout,
      Duration idleTimeout,
      long minBodyBytesPerSecond,
      Duration bodyRateWindow) {}

  /**
   * The operator dashboard at {@code /admin} and its API.
   *
   * @param token {@code BOLO_ADMIN_TOKEN}, the bearer token the dashboard's API requires; null when
   *     unset, and then neither the dashboard nor its API exists
   */
  public record Admin(@Nullable String token) {

    /**
     * Shorter tokens can be guessed by trying: the API answers every guess with a 401 at once.
     * Sixteen characters of a random token are over 64 bits even from a small alphabet.
     */
    public static final int MIN_TOKEN_LENGTH = 16;

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
   * @param baseUrl up to and including the version, without a trailing slash
   * @param apiKey sent as a bearer token; null for local servers that need none
   * @param model the model used when the client names none
   * @param language sent when the client names none; empty sends none
   * @param models the models a device may ask for, the default model among them
   */
  public record OpenAi(
      String baseUrl, @Nullable String apiKey, String model, String language, List<String> models) {
    public OpenAi {
      models = List.copyOf(models);
    }

    @Override
    public String toString() {
      return "OpenAi[baseUrl=" + baseUrl + ", model=" + model + ", models=" + models + "]";
    }
  }

  /**
   * @param baseUrl the API root
   * @param apiKey {@code x-goog-api-key}; required when the engine is Gemini
   * @param model the model used when the client names none
   * @param models the models a device may ask for, the default model among them
   */
  public record Gemini(String baseUrl, @Nullable String apiKey, String model, List<String> models) {
    public Gemini {
      models = List.copyOf(models);
    }

    @Override
    public String toString() {
      return "Gemini[baseUrl=" + baseUrl + ", model=" + model + ", models=" + models + "]";
    }
  }

  /**
   * @param maxSeconds {@code BOLO_OFFLINE_MAX_SECONDS}: the longest note the offline engine takes.
   *     Its measured real-time factor on two cores is up to 1.2 on human speech, so a note of L
   *     seconds needs up to 1.2 L s; within the default engine deadline (120 s + L) that holds up
   *     to L = 120 / 0.2 = 600 s. Longer notes would time out after holding a recogniser, and
   *     unbounded ones exhaust the heap while being decoded.
   */
  public record Offline(long maxSeconds) {}

  /**
   * @param kind memory or Redis
   * @param redisUrl required for Redis
   * @param idempotencyTtl how long a finished transcript is replayed
   * @param dedupMaxBytes bound on the heap held by replayable transcripts
   * @param lease how long a claim on work lives unless renewed
   */
  public record Store(
      StoreKind kind,
      @Nullable String redisUrl,
      Duration idempotencyTtl,
      long dedupMaxBytes,
      Duration lease) {}

  /**
   * @param databaseUrl JDBC URL; null for the embedded SQLite file under {@code dataDir}
   * @param dataDir embedded ledger, instance slots and upload spool
   * @param deviceTokens static devices, token by name
   * @param trialSeconds free audio seconds per device; 0 = unlimited
   * @param rateLimitPerMinute requests per device per minute; 0 = off
   * @param usageRetention {@code BOLO_USAGE_RETENTION}: usage rows older than this are rolled up
   *     into per-device daily totals
   */
  public record LedgerSettings(
      @Nullable String databaseUrl,
      Path dataDir,
      Map<String, String> deviceTokens,
      long trialSeconds,
      int rateLimitPerMinute,
      Duration usageRetention) {
    public LedgerSettings {
      deviceTokens = Map.copyOf(deviceTokens);
    }

    @Override
    public String toString() {
      return "LedgerSettings[databaseUrl="
          + LedgerConfig.redactedUrl(databaseUrl)
          + ", dataDir="
          + dataDir
          + ", staticDevices="
          + deviceTokens.keySet()
          + ", trialSeconds="
          + trialSeconds
          + ", rateLimitPerMinute="
          + rateLimitPerMinute
          + ", usageRetention="
          + usageRetention
          + "]";
    }
  }

  /**
   * @param maxUploadBytes the largest accepted note
   * @param inMemoryUploadBytes notes up to this size stay in memory; larger ones spool to disk
   * @param maxConcurrentUploads bodies read at once ({@code BOLO_MAX_CONCURRENT_UPLOADS})
   * @param maxUploadsPerDevice bodies one device sends at once ({@code
   *     BOLO_MAX_UPLOADS_PER_DEVICE})
   * @param spoolMaxBytes spool bytes in use at once ({@code BOLO_SPOOL_MAX_BYTES})
   * @param maxTranscriptBytes {@code BOLO_MAX_TRANSCRIPT_BYTES}: the most of a provider's answer
   *     the gateway reads; a longer answer is 502 {@code upstream_error}
   * @param answerBudgetBytes {@code BOLO_ANSWER_BUDGET_BYTES}: provider answer bytes held at once
   *     across all notes (an answer larger than it is read alone)
   * @param uploadBudgetBytes {@code BOLO_UPLOAD_BUDGET_BYTES}: declared bytes of bodies read at
   *     once; bodies over {@code inMemoryUploadBytes} wait for room, then get 503
   * @param uploadQueueWait {@code BOLO_UPLOAD_QUEUE_WAIT}: how long such a body waits for room
   * @param uploadTtl {@code BOLO_UPLOAD_TTL}: how long a resumable upload lives after its creation
   * @param maxActiveRequests {@code BOLO_MAX_CONCURRENT_REQUESTS}: upload requests served at once;
   *     more wait their turn without a thread, their bodies unread
   * @param requestQueueWait {@code BOLO_REQUEST_QUEUE_WAIT}: how long such a request waits for its
   *     turn before 503 with {@code Retry-After}
   */
  public record Limits(
      long maxUploadBytes,
      int inMemoryUploadBytes,
      int maxConcurrentUploads,
      int maxUploadsPerDevice,
      long spoolMaxBytes,
      long maxTranscriptBytes,
      long answerBudgetBytes,
      long uploadBudgetBytes,
      Duration uploadQueueWait,
      Duration uploadTtl,
      int maxActiveRequests,
      Duration requestQueueWait) {

    /**
     * Heap per upload request being served, for the default of {@code
     * BOLO_MAX_CONCURRENT_REQUESTS}: a 10 KB note waiting on its provider holds about 50 KiB (the
     * note, two parked virtual-thread stacks, the provider connection's buffers, the request's
     * objects) besides Jetty's 16 KiB connection buffer outside the heap. Doubled, so that the
     * requests served fill about half the heap: ten thousand phones on a 256 MiB heap were still
     * answered (bolo-bench/results/gateway-load-20261201-194246.md), and 2,000 phones, who need
     * about 2,000 requests served at once, are not held back.
     */
    static final long HEAP_BYTES_PER_ACTIVE_REQUEST = 96L * 1024;

    /**
     * The default number of upload requests served at once: the heap divided by {@link
     * #HEAP_BYTES_PER_ACTIVE_REQUEST}, between 64 and 100,000. Worked values: {@code -Xmx256m}
     * 2,730; 1 GiB 10,922; 4 GiB 43,690.
     */
    static int defaultMaxActiveRequests(long maxHeapBytes) {
      return (int) Math.clamp(maxHeapBytes / HEAP_BYTES_PER_ACTIVE_REQUEST, 64, 100_000);
    }

    /**
     * Bytes of upload bodies one core reads at once by default. Reading a body costs CPU for every
     * byte (the multipart scan, SHA-256 at about 1.5 GB/s per core, the spool write and, later, the
     * copy to the provider), so a body's time grows with the bytes read beside it: 64 MiB per core
     * keeps about three 20 MB notes per core in flight, each finishing in well under a second of
     * CPU, while phones sending slowly over a mobile network still fill the budget with several
     * notes at once.
     */
    static final long UPLOAD_BUDGET_BYTES_PER_CORE = 64L * 1024 * 1024;

    /**
     * The default byte budget: {@link #UPLOAD_BUDGET_BYTES_PER_CORE} per core, and at least room
     * for one largest note beside a few smaller ones. The heap does not bound it: bodies beyond the
     * in-memory threshold are spooled to disk and hold only a read buffer and their first bytes in
     * memory. Worked values: 1 core 64 MiB, 2 cores 128 MiB, 8 cores 512 MiB (with the default 25
     * MiB largest note).
     */
    static long defaultUploadBudgetBytes(int cores, long maxUploadBytes) {
      long perCores = Math.multiplyExact((long) Math.max(1, cores), UPLOAD_BUDGET_BYTES_PER_CORE);
      long oneLargest = UploadReader.maxBodyBytes(maxUploadBytes);
      return Math.max(perCores, oneLargest);
    }
  }

  /**
   * The engine deadline for one note and the clients' patience it must outlast (PROTOCOL.md rule
   * 7).
   *
   * @param upstream {@code BOLO_UPSTREAM_TIMEOUT} + the note's length, capped at {@code
   *     BOLO_UPSTREAM_TIMEOUT_MAX}
   * @param clientReadTimeout the SDK's read timeout: {@code BOLO_CLIENT_READ_TIMEOUT} + half the
   *     note, capped at {@code BOLO_CLIENT_READ_TIMEOUT_MAX}
   * @param clientResendPauses the SDK's pauses between attempts added up, {@code
   *     BOLO_CLIENT_RESEND_PAUSES}
   */
  public record Deadlines(
      UpstreamTimeout upstream, UpstreamTimeout clientReadTimeout, Duration clientResendPauses) {}

  /** The SDK's defaults: read timeout 30 s + half the note, at most 120 s; pauses 2, 5 and 10 s. */
  private static final Duration SDK_READ_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration SDK_READ_TIMEOUT_MAX = Duration.ofSeconds(120);
  private static final String SDK_RESEND_PAUSES = "2s,5s,10s";

  /**
   * How long a large body waits for room in the byte budget by default: long enough to ride out a
   * burst, short enough that the wait plus reading the body stays well inside a client's patience
   * (load generators give up after 10 s, the SDK after 30 s and more).
   */
  private static final Duration DEFAULT_UPLOAD_QUEUE_WAIT = Duration.ofSeconds(4);

  /**
   * How long an upload request waits for its turn when {@code BOLO_MAX_CONCURRENT_REQUESTS} are
   * being served: a third of the SDK's 30 s read timeout, which leaves the rest for reading the
   * note and the provider's call.
   */
  private static final Duration DEFAULT_REQUEST_QUEUE_WAIT = Duration.ofSeconds(10);

  private static final List<String> LOG_LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");

  public ServerConfig {
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(openAi, "openAi");
    Objects.requireNonNull(gemini, "gemini");
    Objects.requireNonNull(offline, "offline");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(deadlines, "deadlines");
    Objects.requireNonNull(logLevel, "logLevel");
    Objects.requireNonNull(logFormat, "logFormat");
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
    Map<String, String> merged = new HashMap<>();
    String file = variables.get("BOLO_CONFIG");
    if (file != null && !file.isBlank()) {
      merged.putAll(readFile(Path.of(file.trim())));
    }
    merged.putAll(variables);
    return parse(new Env(merged));
  }

  private static ServerConfig parse(Env env) {
    return parse(env, Runtime.getRuntime().availableProcessors());
  }

  private static ServerConfig parse(Env env, int cores) {
    Listen listen =
        new Listen(
            env.get("BOLO_HOST", "127.0.0.1"),
            env.integer("BOLO_PORT", 8080, 0, 65535),
            env.positiveDuration("BOLO_DRAIN_TIMEOUT", Duration.ofSeconds(30)),
            env.boundedDuration("BOLO_HEADER_TIMEOUT", Duration.ofSeconds(10)),
            env.boundedDuration("BOLO_IDLE_TIMEOUT", Duration.ofSeconds(30)),
            env.longValue("BOLO_MIN_BODY_RATE", 16 * 1024, 1, 1L << 30),
            env.boundedDuration("BOLO_BODY_RATE_WINDOW", Duration.ofSeconds(10)));
    EngineKind engine = env.choice("BOLO_ENGINE", EngineKind.class, EngineKind.OFFLINE);
    OpenAi openAi = openAi(env, engine);
    Gemini gemini = gemini(env, engine);
    Offline offline = new Offline(env.longValue("BOLO_OFFLINE_MAX_SECONDS", 600, 1, 86_400));
    Store store = store(env);
    LedgerSettings ledger = ledger(env);
    long maxUploadBytes = env.longValue("BOLO_MAX_UPLOAD_BYTES", 26_214_400L, 1, Long.MAX_VALUE);
    Limits limits =
        new Limits(
            maxUploadBytes,
            env.integer("BOLO_UPLOAD_MEMORY_BYTES", 1024 * 1024, 0, 64 * 1024 * 1024),
            env.integer("BOLO_MAX_CONCURRENT_UPLOADS", 256, 1, 100_000),
            env.integer("BOLO_MAX_UPLOADS_PER_DEVICE", 8, 1, 100_000),
            env.longValue("BOLO_SPOOL_MAX_BYTES", 4L * 1024 * 1024 * 1024, 1, Long.MAX_VALUE),
            // A transcript is held as a Java string and in the replay store: at most 1 GiB.
            env.longValue(
                "BOLO_MAX_TRANSCRIPT_BYTES", AnswerLimit.DEFAULT_MAX_BYTES, 1024, 1L << 30),
            env.longValue(
                "BOLO_ANSWER_BUDGET_BYTES",
                AnswerBudget.defaultBytes(Runtime.getRuntime().maxMemory()),
                1024,
                Long.MAX_VALUE),
            env.longValue(
                "BOLO_UPLOAD_BUDGET_BYTES",
                Limits.defaultUploadBudgetBytes(cores, maxUploadBytes),
                1,
                Long.MAX_VALUE),
            env.waitDuration("BOLO_UPLOAD_QUEUE_WAIT", DEFAULT_UPLOAD_QUEUE_WAIT),
            env.positiveDuration("BOLO_UPLOAD_TTL", Duration.ofHours(24)),
            env.integer(
                "BOLO_MAX_CONCURRENT_REQUESTS",
                Limits.defaultMaxActiveRequests(Runtime.getRuntime().maxMemory()),
                1,
                1_000_000),
            env.waitDuration("BOLO_REQUEST_QUEUE_WAIT", DEFAULT_REQUEST_QUEUE_WAIT));
    Deadlines deadlines = deadlines(env);
    String logLevel = env.get("BOLO_LOG_LEVEL", "INFO").toUpperCase(Locale.ROOT);
    if (!LOG_LEVELS.contains(logLevel)) {
      throw new ConfigException(
          "BOLO_LOG_LEVEL must be one of " + String.join(", ", LOG_LEVELS) + ": " + logLevel);
    }
    ServerConfig config =
        new ServerConfig(
            listen,
            engine,
            openAi,
            gemini,
            offline,
            store,
            ledger,
            limits,
            deadlines,
            logLevel,
            env.choice("BOLO_LOG_FORMAT", LogFormat.class, LogFormat.TEXT),
            admin(env));
    // Rolling up a charge still inside the charge window would let its work be charged again.
    if (ledger.usageRetention().compareTo(config.chargeWindow()) < 0) {
      throw new ConfigException(
          "BOLO_USAGE_RETENTION must be at least the charge window ("
              + seconds(config.chargeWindow())
              + ", from BOLO_IDEMPOTENCY_TTL and the engine deadline): "
              + env.optional("BOLO_USAGE_RETENTION"));
    }
    return config;
  }

  private static Admin admin(Env env) {
    String token = env.optional("BOLO_ADMIN_TOKEN");
    if (token == null) {
      return Admin.none();
    }
    // The value is a secret: the message gives its length, never the value.
    if (token.length() < Admin.MIN_TOKEN_LENGTH) {
      throw new ConfigException(
          "BOLO_ADMIN_TOKEN must be at least "
              + Admin.MIN_TOKEN_LENGTH
              + " characters: it has "
              + token.length());
    }
    if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new ConfigException(
          "BOLO_ADMIN_TOKEN must be printable ASCII without spaces, as an HTTP header carries it");
    }
    return new Admin(token);
  }

  private static OpenAi openAi(Env env, EngineKind engine) {
    String baseUrl = stripSlash(env.get("BOLO_OPENAI_BASE_URL", "https://api.openai.com/v1"));
    if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw new ConfigException("BOLO_OPENAI_BASE_URL must be an http(s) URL: " + baseUrl);
    }
    String apiKey = env.optional("BOLO_OPENAI_API_KEY");
    // A local server (whisper.cpp, speaches) needs no key; OpenAI's own service always does.
    if (engine == EngineKind.OPENAI && apiKey == null && baseUrl.contains("api.openai.com")) {
      throw new ConfigException(
          "BOLO_ENGINE=openai with OpenAI's service needs BOLO_OPENAI_API_KEY");
    }
    if (apiKey != null && !apiKey.matches("[\\x21-\\x7e]+")) {
      throw new ConfigException("BOLO_OPENAI_API_KEY must be printable ASCII without spaces");
    }
    String model = env.get("BOLO_OPENAI_MODEL", "whisper-1");
    return new OpenAi(
        baseUrl,
        apiKey,
        model,
        env.get("BOLO_OPENAI_LANGUAGE", ""),
        env.models("BOLO_OPENAI_MODELS", model));
  }

  private static Gemini gemini(Env env, EngineKind engine) {
    String apiKey = env.optional("BOLO_GEMINI_API_KEY");
    if (engine == EngineKind.GEMINI && apiKey == null) {
      throw new ConfigException("BOLO_ENGINE=gemini needs BOLO_GEMINI_API_KEY");
    }
    if (apiKey != null && !apiKey.matches("[\\x21-\\x7e]+")) {
      throw new ConfigException("BOLO_GEMINI_API_KEY must be printable ASCII without spaces");
    }
    String baseUrl = stripSlash(env.get("BOLO_GEMINI_BASE_URL", GeminiConfig.DEFAULT_BASE_URL));
    if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw new ConfigException("BOLO_GEMINI_BASE_URL must be an http(s) URL: " + baseUrl);
    }
    String model = env.get("BOLO_GEMINI_MODEL", GeminiConfig.DEFAULT_MODEL);
    return new Gemini(baseUrl, apiKey, model, env.models("BOLO_GEMINI_MODELS", model));
  }

  private static Store store(Env env) {
    StoreKind kind = env.choice("BOLO_STORE", StoreKind.class, StoreKind.MEMORY);
    String redisUrl = env.optional("BOLO_REDIS_URL");
    if (kind == StoreKind.REDIS && redisUrl == null) {
      throw new ConfigException("BOLO_STORE=redis needs BOLO_REDIS_URL");
    }
    if (redisUrl != null) {
      try {
        dev.bolo.server.redis.RedisEndpoint.parse(redisUrl);
      } catch (IllegalArgumentException e) {
        // The URL is not echoed: it may carry a password.
        throw new ConfigException(
            "BOLO_REDIS_URL must be redis://host:port or a comma-separated list of them");
      }
    }
    Duration lease = env.positiveDuration("BOLO_LEASE", Duration.ofSeconds(15));
    if (lease.toMillis() < 30) {
      throw new ConfigException("BOLO_LEASE must be at least 30ms: " + lease);
    }
    return new Store(
        kind,
        redisUrl,
        env.positiveDuration("BOLO_IDEMPOTENCY_TTL", Duration.ofMinutes(10)),
        env.longValue("BOLO_DEDUP_MAX_BYTES", 64L * 1024 * 1024, 1024, Long.MAX_VALUE),
        lease);
  }

  private static LedgerSettings ledger(Env env) {
    Map<String, String> tokens;
    try {
      tokens = LedgerConfig.parseDeviceTokens(env.get("BOLO_DEVICE_TOKENS", ""));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(Objects.requireNonNullElse(e.getMessage(), "BOLO_DEVICE_TOKENS"));
    }
    String databaseUrl = env.optional("BOLO_DATABASE_URL");
    if (databaseUrl != null
        && !databaseUrl.startsWith("jdbc:postgresql:")
        && !databaseUrl.startsWith("jdbc:sqlite:")) {
      throw new ConfigException(
          "BOLO_DATABASE_URL must be jdbc:postgresql:… or jdbc:sqlite:…: "
              + LedgerConfig.redactedUrl(databaseUrl));
    }
    return new LedgerSettings(
        databaseUrl,
        Path.of(env.get("BOLO_DATA_DIR", "bolo-data")),
        tokens,
        env.longValue("BOLO_TRIAL_SECONDS", 0, 0, Long.MAX_VALUE / 1000),
        env.integer("BOLO_RATE_LIMIT_PER_MINUTE", 0, 0, 1_000_000),
        usageRetention(env));
  }

  /** Whole days only in effect: usage is rolled up by UTC day (see {@link LedgerConfig}). */
  private static Duration usageRetention(Env env) {
    Duration retention =
        env.positiveDuration("BOLO_USAGE_RETENTION", LedgerConfig.DEFAULT_USAGE_RETENTION);
    if (retention.compareTo(LedgerConfig.MIN_USAGE_RETENTION) < 0
        || retention.compareTo(LedgerConfig.MAX_USAGE_RETENTION) > 0) {
      throw new ConfigException(
          "BOLO_USAGE_RETENTION must be between 1d and 36500d: "
              + env.optional("BOLO_USAGE_RETENTION"));
    }
    return retention;
  }

  /**
   * The engine deadline must outlast the client's read timeout plus its resend pauses for every
   * note length, so that a resend after a client timeout joins the running work (PROTOCOL.md rule
   * 7). With both sides linear in the note's length and capped, checking the shortest note and the
   * caps covers every length: the engine's slope (1 s per audio second) is steeper than the
   * client's (0.5 s).
   */
  private static Deadlines deadlines(Env env) {
    Duration base = env.positiveDuration("BOLO_UPSTREAM_TIMEOUT", Duration.ofSeconds(120));
    Duration max = env.positiveDuration("BOLO_UPSTREAM_TIMEOUT_MAX", Duration.ofMinutes(15));
    if (max.compareTo(base) < 0) {
      throw new ConfigException(
          "BOLO_UPSTREAM_TIMEOUT_MAX must be at least BOLO_UPSTREAM_TIMEOUT: "
              + max
              + " < "
              + base);
    }
    Duration clientBase = env.positiveDuration("BOLO_CLIENT_READ_TIMEOUT", SDK_READ_TIMEOUT);
    Duration clientMax = env.positiveDuration("BOLO_CLIENT_READ_TIMEOUT_MAX", SDK_READ_TIMEOUT_MAX);
    if (clientMax.compareTo(clientBase) < 0) {
      throw new ConfigException(
          "BOLO_CLIENT_READ_TIMEOUT_MAX must be at least BOLO_CLIENT_READ_TIMEOUT: "
              + clientMax
              + " < "
              + clientBase);
    }
    Duration pauses = Duration.ZERO;
    for (String pause : env.get("BOLO_CLIENT_RESEND_PAUSES", SDK_RESEND_PAUSES).split(",", -1)) {
      pauses = pauses.plus(parseDuration("BOLO_CLIENT_RESEND_PAUSES", pause));
    }
    Duration shortestNeed = clientBase.plus(pauses);
    if (base.compareTo(shortestNeed) <= 0) {
      throw new ConfigException(
          "BOLO_UPSTREAM_TIMEOUT must exceed the client's read timeout plus its resend pauses ("
              + seconds(shortestNeed)
              + ") so a resend joins running work: "
              + seconds(base));
    }
    Duration longestNeed = clientMax.plus(pauses);
    if (max.compareTo(longestNeed) <= 0) {
      throw new ConfigException(
          "BOLO_UPSTREAM_TIMEOUT_MAX must exceed the client's longest read timeout plus its resend"
              + " pauses ("
              + seconds(longestNeed)
              + ") so a resend joins running work: "
              + seconds(max));
    }
    return new Deadlines(
        new UpstreamTimeout(base, Duration.ofSeconds(1), max),
        new UpstreamTimeout(clientBase, Duration.ofMillis(500), clientMax),
        pauses);
  }

  /**
   * Where uploads larger than the in-memory threshold are spooled, one folder per instance slot.
   */
  public Path spoolRoot() {
    return ledger.dataDir().resolve("spool");
  }

  /**
   * The ledger's part of this configuration.
   *
   * @param clock wall time for the ledger's rows
   * @param ticker elapsed nanoseconds for the rate limiter
   */
  public LedgerConfig ledgerConfig(Clock clock, LongSupplier ticker) {
    return LedgerConfig.embedded(ledger.dataDir())
        .withJdbcUrl(ledger.databaseUrl())
        .withStaticTokens(ledger.deviceTokens())
        .withTrialSeconds(ledger.trialSeconds())
        .withRequestsPerMinute(ledger.rateLimitPerMinute())
        // The retention first: the default one may be shorter than a long charge window.
        .withUsageRetention(ledger.usageRetention())
        .withChargeWindow(chargeWindow())
        .withClock(clock, ticker);
  }

  /**
   * How long a piece of work is charged at most once: the replay TTL, or longer when two runs of it
   * (on two instances during a Redis outage) could be further apart than that: the engine deadline
   * cap plus a duplicate's wait margin plus a lease.
   */
  public Duration chargeWindow() {
    Duration runsApart =
        deadlines.upstream().cap().plus(Transcriber.WAIT_MARGIN).plus(store.lease());
    return runsApart.compareTo(store.idempotencyTtl()) > 0 ? runsApart : store.idempotencyTtl();
  }

  /** The longest note the configured engine takes; unbounded but for the upload size otherwise. */
  public long maxAudioMillis() {
    return switch (engine) {
      case OFFLINE -> offline.maxSeconds() * 1000;
      case OPENAI, GEMINI -> Long.MAX_VALUE;
    };
  }

  /** The allowed models of the configured engine; the offline engine has its one model. */
  public List<String> allowedModels() {
    return switch (engine) {
      case OPENAI -> openAi.models();
      case GEMINI -> gemini.models();
      case OFFLINE -> List.of();
    };
  }

  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  /**
   * Parses {@code 10m}, {@code 90s}, {@code 500ms}, {@code 2h}, {@code 1d} or ISO-8601 such as
   * {@code PT10M}.
   *
   * @throws ConfigException naming {@code name} when the value is not a duration
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
      throw new ConfigException(
          name + " must be a duration like 10m, 90s, 500ms or PT10M: " + value.trim());
    }
  }

  private static String seconds(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + "s"
        : duration.toMillis() + "ms";
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static Map<String, String> readFile(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new ConfigException("BOLO_CONFIG: cannot read " + file + ": " + e.getMessage());
    }
    Map<String, String> values = new HashMap<>();
    properties.forEach((k, v) -> values.put(k.toString(), v.toString()));
    return values;
  }

  /** A configuration value that is malformed, out of range or inconsistent with another. */
  public static final class ConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
      super(message);
    }
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

    int integer(String name, int fallback, int min, int max) {
      return (int) longValue(name, fallback, min, max);
    }

    long longValue(String name, long fallback, long min, long max) {
      String value = optional(name);
      if (value == null) {
        return fallback;
      }
      long parsed;
      try {
        parsed = Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new ConfigException(name + " must be a whole number: " + value);
      }
      if (parsed < min || parsed > max) {
        throw new ConfigException(name + " must be between " + min + " and " + max + ": " + value);
      }
      return parsed;
    }

    Duration positiveDuration(String name, Duration fallback) {
      String value = optional(name);
      if (value == null) {
        return fallback;
      }
      Duration parsed = parseDuration(name, value);
      if (parsed.isNegative() || parsed.isZero()) {
        throw new ConfigException(name + " must be positive: " + value);
      }
      return parsed;
    }

    /** A wait of zero (do not wait) up to a minute. */
    Duration waitDuration(String name, Duration fallback) {
      String value = optional(name);
      if (value == null) {
        return fallback;
      }
      Duration parsed = parseDuration(name, value);
      if (parsed.isNegative() || parsed.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new ConfigException(name + " must be between 0s and 1m: " + value);
      }
      return parsed;
    }

    /** A positive duration of at most a day, so it fits in milliseconds anywhere. */
    Duration boundedDuration(String name, Duration fallback) {
      Duration parsed = positiveDuration(name, fallback);
      if (parsed.compareTo(Duration.ofDays(1)) > 0) {
        throw new ConfigException(name + " must be at most a day: " + optional(name));
      }
      return parsed;
    }

    <E extends Enum<E>> E choice(String name, Class<E> type, E fallback) {
      String value = optional(name);
      if (value == null) {
        return fallback;
      }
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equalsIgnoreCase(value)) {
          return constant;
        }
      }
      List<String> names = new ArrayList<>();
      for (E constant : type.getEnumConstants()) {
        names.add(constant.name().toLowerCase(Locale.ROOT));
      }
      throw new ConfigException(
          name + " must be one of " + String.join(", ", names) + ": " + value);
    }

    /** A comma-separated allow-list; the default model is always allowed. */
    List<String> models(String name, String defaultModel) {
      List<String> models = new ArrayList<>();
      models.add(defaultModel);
      for (String model : get(name, defaultModel).split(",", -1)) {
        String trimmed = model.trim();
        if (!trimmed.isEmpty() && !models.contains(trimmed)) {
          if (trimmed.length() > 128) {
            throw new ConfigException(name + " names a model longer than 128 characters");
          }
          models.add(trimmed);
        }
      }
      return models;
    }
  }
}
