package dev.bolo.server;

import java.util.List;

/**
 * Every {@code BOLO_*} variable {@code bolo serve} reads, with a one-line meaning: the one list
 * that {@code bolo serve --help} prints. A test checks it against the names the configuration code
 * reads and the README's table. Immutable.
 */
public final class ConfigVariables {

  /**
   * One variable.
   *
   * @param name the variable, e.g. {@code BOLO_PORT}
   * @param meaning what it sets and its default, in a sentence
   */
  public record Variable(String name, String meaning) {}

  /** In the README's order. */
  public static final List<Variable> ALL =
      List.of(
          v("BOLO_CONFIG", "a properties file with any of these keys; a variable wins over it"),
          v("BOLO_HOST", "address to listen on (default 127.0.0.1)"),
          v("BOLO_PORT", "port to listen on (default 8080)"),
          v("BOLO_ENGINE", "offline, openai or gemini (default offline)"),
          v("BOLO_OPENAI_BASE_URL", "an OpenAI-compatible service (default OpenAI's)"),
          v("BOLO_OPENAI_API_KEY", "its key, sent upstream as the bearer token"),
          v("BOLO_OPENAI_MODEL", "model when the client names none (default whisper-1)"),
          v("BOLO_OPENAI_LANGUAGE", "language sent when the client names none"),
          v("BOLO_OPENAI_MODELS", "models a device may ask for, comma-separated"),
          v("BOLO_GEMINI_BASE_URL", "Gemini's API (default Google's)"),
          v("BOLO_GEMINI_API_KEY", "Gemini key; required with BOLO_ENGINE=gemini"),
          v("BOLO_GEMINI_MODEL", "Gemini model (default gemini-2.5-flash)"),
          v("BOLO_GEMINI_MODELS", "Gemini models a device may ask for, comma-separated"),
          v("BOLO_OFFLINE_MAX_SECONDS", "longest note the offline engine takes (default 600)"),
          v("BOLO_IDEMPOTENCY_TTL", "how long a transcript is replayed (default 10m)"),
          v("BOLO_DEDUP_MAX_BYTES", "memory bound on replayable transcripts (default 64 MiB)"),
          v("BOLO_STORE", "memory or redis (default memory)"),
          v("BOLO_REDIS_URL", "redis://host:port, or cluster seed nodes comma-separated"),
          v("BOLO_LEASE", "how long a claim on work lives unless renewed (default 15s)"),
          v("BOLO_DATABASE_URL", "JDBC URL of the ledger (default SQLite under the data dir)"),
          v("BOLO_DATA_DIR", "embedded ledger and upload spool (default ./bolo-data)"),
          v("BOLO_DEVICE_TOKENS", "static devices, name=token,name2=token2"),
          v("BOLO_MAX_UPLOAD_BYTES", "largest accepted audio (default 26214400)"),
          v("BOLO_UPLOAD_MEMORY_BYTES", "notes up to this stay in memory (default 1048576)"),
          v("BOLO_MAX_TRANSCRIPT_BYTES", "most of a provider's answer read (default 32 MiB)"),
          v("BOLO_ANSWER_BUDGET_BYTES", "provider answer bytes held at once (default heap / 8)"),
          v("BOLO_TRIAL_SECONDS", "free audio seconds per device before 402 (0 = unlimited)"),
          v("BOLO_USAGE_RETENTION", "usage kept in detail, then rolled up daily (default 90d)"),
          v("BOLO_RATE_LIMIT_PER_MINUTE", "requests per device per minute before 429 (0 = off)"),
          v("BOLO_UPSTREAM_TIMEOUT", "engine deadline: this plus the note's length (default 120s)"),
          v("BOLO_UPSTREAM_TIMEOUT_MAX", "cap on the engine deadline (default 15m)"),
          v("BOLO_CLIENT_READ_TIMEOUT", "your apps' SDK read timeout (default 30s)"),
          v("BOLO_CLIENT_READ_TIMEOUT_MAX", "its cap (default 120s)"),
          v("BOLO_CLIENT_RESEND_PAUSES", "your apps' pauses between attempts (default 2s,5s,10s)"),
          v("BOLO_DRAIN_TIMEOUT", "on SIGTERM, how long running requests may finish (default 30s)"),
          v("BOLO_HEADER_TIMEOUT", "request headers must arrive within this (default 10s)"),
          v(
              "BOLO_IDLE_TIMEOUT",
              "an idle keep-alive connection is closed after this (default 30s)"),
          v("BOLO_MIN_BODY_RATE", "slowest accepted upload, bytes per second (default 16384)"),
          v("BOLO_BODY_RATE_WINDOW", "the window that rate is averaged over (default 10s)"),
          v("BOLO_MAX_CONCURRENT_UPLOADS", "bodies read at once before 503 (default 256)"),
          v(
              "BOLO_UPLOAD_BUDGET_BYTES",
              "declared bytes of bodies read at once; larger ones wait their turn (default 64 MiB"
                  + " per core)"),
          v(
              "BOLO_UPLOAD_QUEUE_WAIT",
              "how long a body waits for room in the budget before 503 (default 4s)"),
          v(
              "BOLO_MAX_UPLOADS_PER_DEVICE",
              "bodies one device sends at once before 429 (default 8)"),
          v(
              "BOLO_MAX_CONCURRENT_REQUESTS",
              "upload requests served at once; more wait their turn (default: heap / 96 KiB)"),
          v(
              "BOLO_REQUEST_QUEUE_WAIT",
              "how long a request over that waits for its turn before 503 (default 10s)"),
          v("BOLO_SPOOL_MAX_BYTES", "spool bytes in use before 503 (default 4 GiB)"),
          v("BOLO_UPLOAD_TTL", "unfinished resumable uploads are kept this long (default 24h)"),
          v(
              "BOLO_ADMIN_TOKEN",
              "bearer token of the operator dashboard at /admin (unset = no dashboard)"),
          v("BOLO_LOG_LEVEL", "TRACE, DEBUG, INFO, WARN or ERROR (default INFO)"),
          v("BOLO_LOG_FORMAT", "text, or json for one JSON object per line (default text)"),
          v("BOLO_JAVA_OPTS", "JVM options for ./bolo, such as -Xmx1g (default heap by engine)"));

  private ConfigVariables() {}

  private static Variable v(String name, String meaning) {
    return new Variable(name, meaning);
  }
}
