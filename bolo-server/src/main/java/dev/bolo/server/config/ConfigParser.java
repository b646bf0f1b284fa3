package dev.bolo.server.config;

import static dev.bolo.server.config.Variable.*;

import dev.bolo.server.config.ServerConfig.ConfigException;
import dev.bolo.server.config.ServerConfig.Gemini;
import dev.bolo.server.config.ServerConfig.Limits;
import dev.bolo.server.config.ServerConfig.Listen;
import dev.bolo.server.config.ServerConfig.Store;
import dev.bolo.server.config.ServerConfig.StoreKind;
import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.engine.EngineKind;
import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.ModelAliases;
import dev.bolo.server.engine.UpstreamTimeout;
import dev.bolo.server.engine.offline.OfflineEngine;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.engine.route.Routing;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.transcription.NotePieces;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.upload.UploadReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@link ServerConfig} from the variables' text: each value through its {@link Variable}'s
 * parser, then the checks that involve two values or more. Stateless.
 */
final class ConfigParser {

  private ConfigParser() {}

  /**
   * Heap per upload request being served, for the default of {@code BOLO_MAX_CONCURRENT_REQUESTS}:
   * a 10 KB note waiting on its provider holds about 40 KiB (the note, its provider call's parked
   * virtual-thread stack, the provider connection's buffers, the request's objects; 50 KiB while
   * the request's thread waited too) besides Jetty's 16 KiB connection buffer outside the heap.
   * Doubled, so that the requests served fill about half the heap: ten thousand phones on a 256 MiB
   * heap were still answered (bolo-bench/results/gateway-load-20261201-194246.md), and 2,000
   * phones, who need about 2,000 requests served at once, are not held back.
   */
  static final long HEAP_BYTES_PER_ACTIVE_REQUEST = 96L * 1024;

  /**
   * The default number of upload requests served at once: the heap divided by {@link
   * #HEAP_BYTES_PER_ACTIVE_REQUEST}, between 64 and 100,000. Worked values: {@code -Xmx256m} 2,730;
   * 1 GiB 10,922; 4 GiB 43,690.
   */
  static int defaultMaxActiveRequests(long maxHeapBytes) {
    return (int) Math.clamp(maxHeapBytes / HEAP_BYTES_PER_ACTIVE_REQUEST, 64, 100_000);
  }

  /**
   * Bytes of upload bodies one core reads at once by default. Reading a body costs CPU for every
   * byte (the multipart scan, SHA-256 at about 1.5 GB/s per core, the spool write and, later, the
   * copy to the provider), so a body's time grows with the bytes read beside it: 64 MiB per core
   * keeps about three 20 MB notes per core in flight, each finishing in well under a second of CPU,
   * while phones sending slowly over a mobile network still fill the budget with several notes at
   * once.
   */
  static final long UPLOAD_BUDGET_BYTES_PER_CORE = 64L * 1024 * 1024;

  /**
   * The default byte budget: {@link #UPLOAD_BUDGET_BYTES_PER_CORE} per core. A long note needs no
   * more: one body is charged at most one core's share (64 MiB), since one thread reads it however
   * long it is; with a budget of one 512 MiB note, a note that long would leave room for little
   * else, and the short ones beside it would share the cores four times over. The heap does not
   * bound it: bodies beyond the in-memory threshold are spooled to disk and hold only a read buffer
   * and their first bytes in memory. Worked values: 1 core 64 MiB, 2 cores 128 MiB, 8 cores 512
   * MiB.
   */
  static long defaultUploadBudgetBytes(int cores) {
    return Math.multiplyExact((long) Math.max(1, cores), UPLOAD_BUDGET_BYTES_PER_CORE);
  }

  /** Reads {@code variables} over the {@code BOLO_CONFIG} file's entries, if it names one. */
  static ServerConfig parse(Map<String, String> variables) {
    Map<String, String> merged = new HashMap<>();
    String file = variables.get(BOLO_CONFIG.name());
    if (file != null && !file.isBlank()) {
      merged.putAll(readFile(Path.of(file.trim())));
    }
    merged.putAll(variables);
    return parse(
        new VariableValues(SecretFiles.resolve(merged)),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory());
  }

  static ServerConfig parse(VariableValues env, int cores, long maxHeapBytes) {
    Listen listen =
        new Listen(
            env.text(BOLO_HOST),
            env.integer(BOLO_PORT),
            env.duration(BOLO_DRAIN_TIMEOUT),
            env.duration(BOLO_HEADER_TIMEOUT),
            env.duration(BOLO_IDLE_TIMEOUT),
            env.duration(BOLO_WARMUP));
    Routing routes = RoutingParser.parse(env);
    // Routes replace BOLO_ENGINE, whose key is then unused.
    EngineKind alone = routes != null ? null : env.choice(BOLO_ENGINE, EngineKind.class);
    OpenAiConfig openAi = openAi(env, alone);
    Gemini gemini = gemini(env, alone);
    // Both lists are checked, whichever engine runs: a mistake shows before the engine changes.
    List<String> openAiModels = env.names(BOLO_OPENAI_MODELS, openAi.defaultModel());
    List<String> geminiModels = env.names(BOLO_GEMINI_MODELS, gemini.model());
    Routing routing =
        routes != null
            ? routes
            : RoutingParser.alone(
                Objects.requireNonNull(alone), openAi, gemini, openAiModels, geminiModels);
    boolean offlineAlone = alone == EngineKind.OFFLINE;
    Store store = store(env);
    long offlineMaxSeconds = env.whole(BOLO_OFFLINE_MAX_SECONDS);
    // The offline engine's deadline covers its longest note, alone or as a route's target.
    boolean offline = routing.engines().stream().anyMatch(e -> e.kind() == EngineKind.OFFLINE);
    Deadlines deadlines = deadlines(env, offline, offlineMaxSeconds);
    Limits limits = limits(env, cores, maxHeapBytes);
    return new ServerConfig(
        listen,
        openAi,
        gemini,
        new ServerConfig.Offline(offlineMaxSeconds),
        // The offline engine offers its one model to whoever names none.
        offlineAlone ? List.of() : routing.models(),
        modelAliases(env, offlineAlone, routing.models()),
        store,
        ledger(env, chargeWindow(store, deadlines)),
        limits,
        deadlines,
        pieces(env),
        env.choice(BOLO_LOG_LEVEL, ServerConfig.LogLevel.class),
        env.choice(BOLO_LOG_FORMAT, ServerConfig.LogFormat.class),
        new ServerConfig.Admin(env.optional(BOLO_ADMIN_TOKEN)),
        routing,
        TlsParser.parse(env),
        new ServerConfig.Jobs(
            env.duration(BOLO_JOB_RETENTION),
            env.integer(BOLO_MAX_QUEUED_JOBS_PER_DEVICE),
            env.whole(BOLO_MAX_QUEUED_JOB_BYTES_PER_DEVICE)),
        env.hostPorts(BOLO_WEBHOOK_HTTP_HOSTS),
        env.prefixed("OTEL_"));
  }

  /**
   * {@code BOLO_MODEL_ALIASES}, or by default OpenAI's model names for the offline engine's one
   * model, so that an OpenAI SDK works on the defaults. Every alias must stand for an offered
   * model.
   */
  private static ModelAliases modelAliases(
      VariableValues env, boolean offlineAlone, List<String> offered) {
    String given = env.optional(BOLO_MODEL_ALIASES);
    ModelAliases aliases;
    try {
      aliases =
          given != null
              ? ModelAliases.parse(given)
              : offlineAlone
                  ? ModelAliases.openAiNamesFor(OfflineEngine.MODEL)
                  : ModelAliases.none();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("BOLO_MODEL_ALIASES: " + e.getMessage());
    }
    aliases
        .byAlias()
        .forEach(
            (alias, model) -> {
              if (!offered.contains(model)) {
                throw new ConfigException(
                    "BOLO_MODEL_ALIASES: "
                        + alias
                        + " stands for "
                        + model
                        + ", which is not offered; offered: "
                        + String.join(", ", offered));
              }
            });
    return aliases;
  }

  private static Limits limits(VariableValues env, int cores, long maxHeapBytes) {
    UploadReader.Bounds uploads =
        new UploadReader.Bounds(
            env.integer(BOLO_MAX_CONCURRENT_UPLOADS),
            env.integerOrFormer(BOLO_MAX_BODIES_PER_DEVICE, BOLO_MAX_UPLOADS_PER_DEVICE),
            env.whole(BOLO_SPOOL_MAX_BYTES),
            env.whole(BOLO_MIN_BODY_RATE),
            env.duration(BOLO_BODY_RATE_WINDOW),
            env.whole(BOLO_UPLOAD_BUDGET_BYTES, defaultUploadBudgetBytes(cores)),
            env.duration(BOLO_UPLOAD_QUEUE_WAIT));
    return new Limits(
        env.whole(BOLO_MAX_UPLOAD_BYTES),
        env.integer(BOLO_UPLOAD_MEMORY_BYTES),
        uploads,
        env.duration(BOLO_UPLOAD_TTL),
        env.integerOrFormer(BOLO_MAX_OPEN_UPLOADS_PER_DEVICE, BOLO_MAX_UPLOADS_PER_DEVICE),
        env.optional(BOLO_MAX_UPLOADS_PER_DEVICE) != null,
        // A transcript is held as a Java string and in the replay store: at most 1 GiB.
        env.whole(BOLO_MAX_TRANSCRIPT_BYTES),
        env.whole(BOLO_ANSWER_BUDGET_BYTES, AnswerBudget.defaultBytes(maxHeapBytes)),
        Math.toIntExact(
            env.whole(BOLO_MAX_CONCURRENT_REQUESTS, defaultMaxActiveRequests(maxHeapBytes))),
        env.duration(BOLO_REQUEST_QUEUE_WAIT),
        env.integer(BOLO_WRONG_TOKENS_PER_MINUTE));
  }

  /** How many pieces of long notes run at once. */
  private static NotePieces.Config pieces(VariableValues env) {
    int perNote = env.integer(BOLO_MAX_PIECES_PER_NOTE);
    int atOnce = env.integer(BOLO_MAX_CONCURRENT_PIECES);
    if (atOnce < perNote) {
      throw new ConfigException(
          "BOLO_MAX_CONCURRENT_PIECES must be at least BOLO_MAX_PIECES_PER_NOTE: " + atOnce);
    }
    return new NotePieces.Config(perNote, atOnce);
  }

  /**
   * A provider's request limits as the operator replaces them; every engine's values are checked,
   * whichever runs, so that a mistake shows before the engine changes.
   */
  private static EngineLimits.Overrides limits(
      VariableValues env, Variable requestBytes, Variable seconds) {
    return new EngineLimits.Overrides(env.optionalWhole(requestBytes), env.optionalWhole(seconds));
  }

  private static OpenAiConfig openAi(VariableValues env, @Nullable EngineKind engine) {
    String baseUrl = env.url(BOLO_OPENAI_BASE_URL);
    String apiKey = env.secret(BOLO_OPENAI_API_KEY);
    // A local server (whisper.cpp, speaches) needs no key; OpenAI's own service always does.
    if (engine == EngineKind.OPENAI && apiKey == null && baseUrl.contains("api.openai.com")) {
      throw new ConfigException(
          "BOLO_ENGINE=openai with OpenAI's service needs BOLO_OPENAI_API_KEY");
    }
    return new OpenAiConfig(
            baseUrl, apiKey, env.text(BOLO_OPENAI_MODEL), env.text(BOLO_OPENAI_LANGUAGE))
        .withLimits(limits(env, BOLO_OPENAI_MAX_REQUEST_BYTES, BOLO_OPENAI_MAX_SECONDS));
  }

  private static Gemini gemini(VariableValues env, @Nullable EngineKind engine) {
    String apiKey = env.optional(BOLO_GEMINI_API_KEY);
    if (engine == EngineKind.GEMINI && apiKey == null) {
      throw new ConfigException("BOLO_ENGINE=gemini needs BOLO_GEMINI_API_KEY");
    }
    return new Gemini(
        env.url(BOLO_GEMINI_BASE_URL),
        env.secret(BOLO_GEMINI_API_KEY),
        env.text(BOLO_GEMINI_MODEL),
        limits(env, BOLO_GEMINI_MAX_REQUEST_BYTES, BOLO_GEMINI_MAX_SECONDS));
  }

  private static Store store(VariableValues env) {
    StoreKind kind = env.choice(BOLO_STORE, StoreKind.class);
    return new Store(
        kind,
        env.redisUrl(BOLO_REDIS_URL),
        env.readableFile(BOLO_REDIS_CA_CERT),
        env.duration(BOLO_REDIS_TIMEOUT),
        env.duration(BOLO_IDEMPOTENCY_TTL),
        env.whole(BOLO_DEDUP_MAX_BYTES),
        env.duration(BOLO_LEASE));
  }

  /**
   * How long a piece of work is charged at most once: the replay TTL, or longer when two runs of it
   * (on two instances during a Redis outage) could be further apart than that: the engine deadline
   * cap plus a duplicate's wait margin plus a lease.
   */
  static Duration chargeWindow(Store store, Deadlines deadlines) {
    Duration runsApart =
        deadlines.upstream().cap().plus(Transcriber.WAIT_MARGIN).plus(store.lease());
    return runsApart.compareTo(store.idempotencyTtl()) > 0 ? runsApart : store.idempotencyTtl();
  }

  private static LedgerConfig ledger(VariableValues env, Duration chargeWindow) {
    Map<String, String> tokens;
    try {
      tokens = LedgerConfig.parseDeviceTokens(env.text(BOLO_DEVICE_TOKENS));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(Objects.requireNonNullElse(e.getMessage(), "BOLO_DEVICE_TOKENS"));
    }
    String databaseUrl = env.optional(BOLO_DATABASE_URL);
    if (databaseUrl != null
        && !databaseUrl.startsWith("jdbc:postgresql:")
        && !databaseUrl.startsWith("jdbc:sqlite:")) {
      throw new ConfigException(
          "BOLO_DATABASE_URL must be jdbc:postgresql:… or jdbc:sqlite:…: "
              + LedgerConfig.redactedUrl(databaseUrl));
    }
    // Whole days only in effect: usage is rolled up by UTC day (see LedgerConfig).
    Duration retention = env.duration(BOLO_USAGE_RETENTION);
    // Rolling up a charge still inside the charge window would let its work be charged again.
    if (retention.compareTo(chargeWindow) < 0) {
      throw new ConfigException(
          "BOLO_USAGE_RETENTION must be at least the charge window ("
              + seconds(chargeWindow)
              + ", from BOLO_IDEMPOTENCY_TTL and the engine deadline): "
              + env.optional(BOLO_USAGE_RETENTION));
    }
    return LedgerConfig.embedded(Path.of(env.text(BOLO_DATA_DIR)))
        .withJdbcUrl(databaseUrl)
        .withMigrationUrl(env.optional(BOLO_DATABASE_MIGRATION_URL))
        .withStaticTokens(tokens)
        .withTrialSeconds(env.whole(BOLO_TRIAL_SECONDS))
        .withRequestsPerMinute(env.integer(BOLO_RATE_LIMIT_PER_MINUTE))
        // The retention first: the default one may be shorter than a long charge window.
        .withUsageRetention(retention)
        .withChargeWindow(chargeWindow);
  }

  /** The default cap on a provider's deadline for one note (PROTOCOL rule 7). */
  static final Duration PROVIDER_CAP = Duration.ofMinutes(15);

  /**
   * The engine deadline must outlast the client's read timeout plus its resend pauses for every
   * note length, so that a resend after a client timeout joins the running work (PROTOCOL.md rule
   * 7). With both sides linear in the note's length and capped, checking the shortest note and the
   * caps covers every length: the engine's slope (1 s per audio second) is steeper than the
   * client's (0.5 s).
   */
  private static Deadlines deadlines(VariableValues env, boolean offline, long offlineMaxSeconds) {
    Duration base = env.duration(BOLO_UPSTREAM_TIMEOUT);
    // The offline engine recognises a note at about half its length on two cores: the cap must
    // let it finish the longest note it takes (rule 7), which 15 minutes would not for an hour.
    Duration offlineCap = base.plusSeconds(offlineMaxSeconds);
    Duration max =
        env.duration(
            BOLO_UPSTREAM_TIMEOUT_MAX,
            offline && offlineCap.compareTo(PROVIDER_CAP) > 0 ? offlineCap : PROVIDER_CAP);
    requireAtLeast(BOLO_UPSTREAM_TIMEOUT_MAX, max, BOLO_UPSTREAM_TIMEOUT, base);
    Duration clientBase = env.duration(BOLO_CLIENT_READ_TIMEOUT);
    Duration clientMax = env.duration(BOLO_CLIENT_READ_TIMEOUT_MAX);
    requireAtLeast(BOLO_CLIENT_READ_TIMEOUT_MAX, clientMax, BOLO_CLIENT_READ_TIMEOUT, clientBase);
    Duration pauses = Duration.ZERO;
    for (Duration pause : env.durations(BOLO_CLIENT_RESEND_PAUSES)) {
      pauses = pauses.plus(pause);
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

  private static void requireAtLeast(
      Variable cap, Duration capValue, Variable base, Duration baseValue) {
    if (capValue.compareTo(baseValue) < 0) {
      throw new ConfigException(
          cap + " must be at least " + base + ": " + capValue + " < " + baseValue);
    }
  }

  private static String seconds(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + "s"
        : duration.toMillis() + "ms";
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
}
