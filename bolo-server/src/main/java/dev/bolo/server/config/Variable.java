package dev.bolo.server.config;

import static dev.bolo.server.config.VariableParser.FOREVER;
import static dev.bolo.server.config.VariableParser.HOST_PORTS;
import static dev.bolo.server.config.VariableParser.MODELS;
import static dev.bolo.server.config.VariableParser.POSITIVE;
import static dev.bolo.server.config.VariableParser.SECRET;
import static dev.bolo.server.config.VariableParser.TEXT;
import static dev.bolo.server.config.VariableParser.UP_TO_A_DAY;
import static dev.bolo.server.config.VariableParser.UP_TO_A_MINUTE;
import static dev.bolo.server.config.VariableParser.URL;
import static dev.bolo.server.config.VariableParser.choice;
import static dev.bolo.server.config.VariableParser.whole;

import dev.bolo.server.config.VariableParser.Choice;
import dev.bolo.server.config.VariableParser.Durations;
import dev.bolo.server.config.VariableParser.Span;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.EngineKind;
import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.tls.TlsConfig;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Every {@code BOLO_*} variable {@code bolo serve} reads, the one place each is declared: named as
 * the variable, each constant carries how its text is read and checked, its default and a one-line
 * meaning for {@code bolo serve --help}. The parser ({@link ServerConfig#fromMap}) reads them
 * through {@link VariableValues}; the table of docs/configuration.md explains them in words for an
 * operator, and a test holds it to this list: every variable once, in this order, with its default.
 * Immutable.
 */
public enum Variable {
  BOLO_CONFIG(TEXT, null, "a properties file with any of these keys; a variable wins over it"),
  BOLO_HOST(TEXT, "127.0.0.1", "address to listen on (default 127.0.0.1)"),
  BOLO_PORT(whole(0, 65535), "8080", "port to listen on (default 8080)"),
  BOLO_TLS(
      choice(TlsConfig.Mode.class),
      "off",
      "on: HTTPS on the port, for phones (bolo serve --tls; default off)"),
  BOLO_TLS_NAMES(
      TEXT,
      null,
      "more host names and addresses for the gateway's own certificate, comma-separated"),
  BOLO_TLS_CERT(
      TEXT,
      null,
      "PEM file of your own server certificate and its chain, instead of the gateway's"),
  BOLO_TLS_KEY(TEXT, null, "PEM file of that certificate's private key"),
  BOLO_ENGINE(
      choice(EngineKind.class, EngineKind.ALONE),
      "offline",
      "offline, openai or gemini (default offline)"),
  BOLO_ENGINES(
      TEXT,
      null,
      "several engines by name (each configured by BOLO_ENGINE_<NAME>_*); replaces BOLO_ENGINE"),
  BOLO_ROUTES(
      TEXT, null, "model=engine/model,engine/model;... the targets of each model, tried in order"),
  BOLO_OPENAI_BASE_URL(
      URL, "https://api.openai.com/v1", "an OpenAI-compatible service (default OpenAI's)"),
  BOLO_OPENAI_API_KEY(SECRET, null, "its key, sent upstream as the bearer token"),
  BOLO_OPENAI_MODEL(TEXT, "whisper-1", "model when the client names none (default whisper-1)"),
  BOLO_OPENAI_LANGUAGE(TEXT, "", "language sent when the client names none"),
  BOLO_GEMINI_BASE_URL(URL, GeminiConfig.DEFAULT_BASE_URL, "Gemini's API (default Google's)"),
  BOLO_GEMINI_API_KEY(SECRET, null, "Gemini key; required with BOLO_ENGINE=gemini"),
  BOLO_GEMINI_MODEL(TEXT, GeminiConfig.DEFAULT_MODEL, "Gemini model (default gemini-2.5-flash)"),
  BOLO_OPENAI_MAX_REQUEST_BYTES(
      whole(1_048_576, Long.MAX_VALUE),
      null,
      "largest request the provider takes; larger notes go in pieces (default 26214400)"),
  BOLO_OPENAI_MAX_SECONDS(
      whole(1, 86_400),
      null,
      "longest note in one request (default 1500 for gpt-4o models, none for whisper)"),
  BOLO_GEMINI_MAX_REQUEST_BYTES(
      whole(1_048_576, Long.MAX_VALUE),
      null,
      "largest request Gemini takes, its Files API included (default 2 GiB)"),
  BOLO_GEMINI_MAX_SECONDS(
      whole(1, 86_400), null, "longest note in one Gemini request (default 34200, 9.5 hours)"),
  BOLO_MAX_PIECES_PER_NOTE(whole(1, 64), "4", "pieces of one note sent at once (default 4)"),
  BOLO_MAX_CONCURRENT_PIECES(
      whole(1, 10_000), "16", "pieces of all notes sent at once (default 16)"),
  BOLO_IDEMPOTENCY_TTL(POSITIVE, "10m", "how long a transcript is replayed (default 10m)"),
  BOLO_DEDUP_MAX_BYTES(
      whole(1024, Long.MAX_VALUE),
      "67108864",
      "memory bound on replayable transcripts (default 64 MiB)"),
  BOLO_STORE(choice(ServerConfig.StoreKind.class), "memory", "memory or redis (default memory)"),
  BOLO_REDIS_URL(TEXT, null, "redis://host:port, or cluster seed nodes comma-separated"),
  BOLO_REDIS_CA_CERT(
      TEXT, null, "path of a PEM file of the CAs a rediss:// server's certificate must chain to"),
  BOLO_REDIS_TIMEOUT(
      new Span(Duration.ofMillis(10), Duration.ofMinutes(1), "must be between 10ms and 1m"),
      "1s",
      "how long one Redis command may take before the gateway serves without it (default 1s)"),
  BOLO_LEASE(
      new Span(Duration.ofMillis(30), FOREVER, "must be at least 30ms"),
      "15s",
      "how long a claim on work lives unless renewed (default 15s)"),
  BOLO_DATABASE_URL(TEXT, null, "JDBC URL of the ledger (default SQLite under the data dir)"),
  BOLO_DATABASE_MIGRATION_URL(
      TEXT,
      null,
      "JDBC URL the schema is migrated through (the server behind a pooler); default the ledger's"),
  BOLO_DATA_DIR(TEXT, "bolo-data", "embedded ledger and upload spool (default ./bolo-data)"),
  BOLO_DEVICE_TOKENS(TEXT, "", "static devices, name=token,name2=token2"),
  BOLO_MAX_UPLOAD_BYTES(
      whole(1, Long.MAX_VALUE),
      "536870912",
      "largest note one POST takes, at most the spool budget (default 512 MiB)"),
  BOLO_UPLOAD_MEMORY_BYTES(
      whole(0, 64 * 1024 * 1024), "1048576", "notes up to this stay in memory (default 1048576)"),
  BOLO_MAX_TRANSCRIPT_BYTES(
      whole(1024, 1L << 30),
      String.valueOf(AnswerLimit.DEFAULT_MAX_BYTES),
      "most of a provider's answer read (default 32 MiB)"),
  BOLO_ANSWER_BUDGET_BYTES(
      whole(1024, Long.MAX_VALUE), null, "provider answer bytes held at once (default heap / 8)"),
  BOLO_TRIAL_SECONDS(
      whole(0, Long.MAX_VALUE / 1000),
      "0",
      "free audio seconds per device before 402 (0 = unlimited)"),
  BOLO_USAGE_RETENTION(
      new Span(
          LedgerConfig.MIN_USAGE_RETENTION,
          LedgerConfig.MAX_USAGE_RETENTION,
          "must be between 1d and 36500d"),
      "90d",
      "usage kept in detail, then rolled up daily (default 90d)"),
  BOLO_RATE_LIMIT_PER_MINUTE(
      whole(0, 1_000_000), "0", "requests per device per minute before 429 (0 = off)"),
  BOLO_WRONG_TOKENS_PER_MINUTE(
      whole(1, 1_000_000),
      "10",
      "wrong tokens one client address may send per minute before 429 (default 10)"),
  BOLO_UPSTREAM_TIMEOUT(
      POSITIVE, "120s", "engine deadline: this plus the note's length (default 120s)"),
  BOLO_UPSTREAM_TIMEOUT_MAX(
      POSITIVE,
      null,
      "cap on the engine deadline (default 15m; offline: at least BOLO_UPSTREAM_TIMEOUT + its longest note)"),
  BOLO_CLIENT_READ_TIMEOUT(POSITIVE, "30s", "your apps' SDK read timeout (default 30s)"),
  BOLO_CLIENT_READ_TIMEOUT_MAX(POSITIVE, "120s", "its cap (default 120s)"),
  BOLO_CLIENT_RESEND_PAUSES(
      new Durations(), "2s,5s,10s", "your apps' pauses between attempts (default 2s,5s,10s)"),
  BOLO_DRAIN_TIMEOUT(
      POSITIVE, "30s", "on SIGTERM, how long running requests may finish (default 30s)"),
  BOLO_WARMUP(
      new Span(Duration.ZERO, Duration.ofMinutes(10), "must be 0 to 10m"),
      "0s",
      "before it says ready, warm the request path up on a stand-in this long (default 0s)"),
  BOLO_HEADER_TIMEOUT(UP_TO_A_DAY, "10s", "request headers must arrive within this (default 10s)"),
  BOLO_IDLE_TIMEOUT(
      UP_TO_A_DAY, "30s", "an idle keep-alive connection is closed after this (default 30s)"),
  BOLO_MIN_BODY_RATE(
      whole(1, 1L << 30), "16384", "slowest accepted upload, bytes per second (default 16384)"),
  BOLO_BODY_RATE_WINDOW(UP_TO_A_DAY, "10s", "the window that rate is averaged over (default 10s)"),
  BOLO_MAX_CONCURRENT_UPLOADS(
      whole(1, 100_000), "256", "bodies read at once before 503 (default 256)"),
  BOLO_UPLOAD_BUDGET_BYTES(
      whole(1, Long.MAX_VALUE),
      null,
      "declared bytes of bodies read at once; larger ones wait their turn (default 64 MiB "
          + "per core)"),
  BOLO_UPLOAD_QUEUE_WAIT(
      UP_TO_A_MINUTE,
      "4s",
      "how long a body waits its turn (room in the budget, a slot) before 503 (default 4s)"),
  BOLO_MAX_CONCURRENT_REQUESTS(
      whole(1, 1_000_000),
      null,
      "upload requests served at once; more wait their turn (default: heap / 96 KiB)"),
  BOLO_REQUEST_QUEUE_WAIT(
      UP_TO_A_MINUTE,
      "10s",
      "how long a request over that waits for its turn before 503 (default 10s)"),
  BOLO_MAX_BODIES_PER_DEVICE(
      whole(1, 100_000), "8", "request bodies one device sends at once before 429 (default 8)"),
  BOLO_MAX_OPEN_UPLOADS_PER_DEVICE(
      whole(1, 100_000), "8", "unfinished resumable uploads one device may have (default 8)"),
  BOLO_MAX_UPLOADS_PER_DEVICE(
      whole(1, 100_000),
      null,
      "former name of the two above, deprecated: sets both where they are unset"),
  BOLO_SPOOL_MAX_BYTES(
      whole(1, Long.MAX_VALUE),
      "4294967296",
      "spool bytes in use before 503, at most the disk's room (default 4 GiB)"),
  BOLO_UPLOAD_TTL(POSITIVE, "24h", "unfinished resumable uploads are kept this long (default 24h)"),
  BOLO_JOB_RETENTION(
      new Span(Duration.ofHours(1), Duration.ofDays(36_500), "must be between 1h and 36500d"),
      "7d",
      "jobs, their results and webhook events are kept this long (default 7d)"),
  BOLO_MAX_QUEUED_JOBS_PER_DEVICE(
      whole(1, 1_000_000), "100", "jobs one device may have waiting before 429 (default 100)"),
  BOLO_MAX_QUEUED_JOB_BYTES_PER_DEVICE(
      whole(1, Long.MAX_VALUE),
      "2147483648",
      "note bytes one device's waiting jobs may hold before 429 (default 2 GiB)"),
  BOLO_OPENAI_MODELS(MODELS, null, "models a device may ask for, comma-separated"),
  BOLO_GEMINI_MODELS(MODELS, null, "Gemini models a device may ask for, comma-separated"),
  BOLO_MODEL_ALIASES(
      TEXT,
      null,
      "alias=model,...: names clients may send for a model (offline default: OpenAI's names)"),
  BOLO_OFFLINE_MAX_SECONDS(
      whole(1, 86_400), "3600", "longest note the offline engine takes (default 3600)"),
  BOLO_ADMIN_TOKEN(
      TEXT, null, "bearer token of the operator dashboard at /admin (unset = no dashboard)"),
  BOLO_WEBHOOK_HTTP_HOSTS(
      HOST_PORTS,
      null,
      "host:port,...: webhook receivers called over plain http and at any address (default none)"),
  BOLO_LOG_LEVEL(
      new Choice<>(ServerConfig.LogLevel.class, true),
      "INFO",
      "TRACE, DEBUG, INFO, WARN or ERROR (default INFO)"),
  BOLO_LOG_FORMAT(
      choice(ServerConfig.LogFormat.class),
      "text",
      "text, or json for one JSON object per line (default text)"),
  BOLO_JAVA_OPTS(TEXT, null, "JVM options for ./bolo, such as -Xmx512m (default heap 256 MB)");

  /** Every variable, in the table's order. */
  public static final List<Variable> ALL = List.of(values());

  private final VariableParser parser;
  private final @Nullable String defaultValue;
  private final String help;

  Variable(VariableParser parser, @Nullable String defaultValue, String help) {
    this.parser = parser;
    this.defaultValue = defaultValue;
    this.help = help;
  }

  /** How the variable's text is read and checked. */
  VariableParser parser() {
    return parser;
  }

  /**
   * The text that applies when the variable is unset, read by the same parser; null when there is
   * none or the parser works it out from other values (the heap, the cores, the configured model).
   */
  public @Nullable String defaultValue() {
    return defaultValue;
  }

  /** What the variable sets and its default, in one line for {@code bolo serve --help}. */
  public String help() {
    return help;
  }
}
