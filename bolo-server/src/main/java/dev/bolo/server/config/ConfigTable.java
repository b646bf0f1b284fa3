package dev.bolo.server.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The configuration table of docs/configuration.md, one constant per row, in its order: what its
 * variables mean and their defaults, in words for an operator. Each {@link Variable} names its row;
 * several variables may share one (the host and the port). {@link #markdown()} writes the table,
 * and a test keeps that copy equal to it. Immutable.
 */
public enum ConfigTable {
  CONFIG("a properties file with any of these keys; a variable always wins over the file", "—"),
  LISTEN("where `./bolo serve` listens", "`127.0.0.1`, `8080`"),
  TLS(
      "`on`: the port speaks HTTPS (and plain HTTP to this machine only; from elsewhere a "
          + "redirect to HTTPS), so a phone's browser lets the dictation page record "
          + "([docs/connect-a-phone.md](connect-a-phone.md)); `./bolo serve --tls` sets it. "
          + "Unless `BOLO_TLS_CERT` is set, the gateway makes its own certificate authority once "
          + "(`tls/` under `BOLO_DATA_DIR`, keys 0600; phones install its certificate from "
          + "`/ca.crt`; it lasts two years and may sign only for the names it was made for and "
          + "the LAN ranges) and a server certificate for `localhost`, the host name and the LAN "
          + "addresses, and the names and addresses of `BOLO_TLS_NAMES` (the address a container "
          + "is reached at, say)",
      "`off`; none"),
  TLS_CERT(
      "PEM files of your own certificate (a chain, server certificate first) and its "
          + "unencrypted private key (PKCS#8, SEC 1 or PKCS#1), for `BOLO_TLS=on` with a "
          + "certificate your devices already trust; read at start",
      "—"),
  ENGINE("`offline`, `openai`, `gemini`", "`offline`"),
  ENGINES(
      "several engines and the routes over them (see [Several engines](engines.md#several-engines-and-failover)): "
          + "`BOLO_ENGINES=primary,backup` names them, each is configured by "
          + "`BOLO_ENGINE_<NAME>_KIND` (`openai`, `azure`, `deepgram`, `gemini`, `offline`), `_BASE_URL`, "
          + "`_API_KEY` "
          + "(or `_API_KEY_FILE`), `_MAX_CONCURRENT` (calls in flight) and `_MAX_PER_MINUTE` "
          + "(calls started per minute); `BOLO_ROUTES=whisper-1=primary/whisper-1,backup/"
          + "whisper-large-v3-turbo;…` maps each model a client may ask for to its targets, tried "
          + "in order (the first route serves requests that name none). When set, they replace "
          + "`BOLO_ENGINE` and its variables",
      "unset: the one engine of `BOLO_ENGINE`"),
  OPENAI_BASE_URL(
      "any OpenAI-compatible `/audio/transcriptions` service", "`https://api.openai.com/v1`"),
  OPENAI_API_KEY("sent as the bearer token upstream", "none"),
  OPENAI_MODEL("model used when the client names none", "`whisper-1`"),
  OPENAI_LANGUAGE("language sent when the client names none (`auto` for whisper.cpp)", "none"),
  GEMINI("Gemini `generateContent`", "Google's, none, `gemini-2.5-flash`"),
  ENGINE_LIMITS(
      "the most one provider request may carry: its bytes (the note and the form around it) "
          + "and the longest note the model takes. A note beyond either is sent in pieces cut at "
          + "its pauses (see [Long notes](engines.md#long-notes-in-pieces)); set them for a compatible "
          + "server whose limits differ from the provider's. Each applies to every engine of its "
          + "provider, `BOLO_ENGINE`'s or a route's target: OpenAI's to `openai` and `azure` "
          + "engines, Gemini's to `gemini` engines",
      "the provider's documented limits: OpenAI `26214400` and `1500` for the `gpt-4o` "
          + "transcription models (none for whisper models); Gemini 2 GiB (Files API) and "
          + "`34200`"),
  PIECES(
      "pieces of one long note sent to the provider at once (`1`: one after another, each "
          + "prompted with the end of the text before it), and of all notes at once; each piece "
          + "waiting or running holds one spool file of at most the provider's request size "
          + "(outside `BOLO_SPOOL_MAX_BYTES`)",
      "`4`, `16`"),
  IDEMPOTENCY_TTL("how long a finished transcript is replayed (`10m`, `90s`, `PT10M`)", "`10m`"),
  DEDUP_MAX_BYTES("memory bound on replayable transcripts (in-memory store)", "`67108864`"),
  STORE("`memory` or `redis`", "`memory`"),
  REDIS_URL(
      "`redis://host:port`, or Redis Cluster seed nodes, comma-separated (one node of a cluster "
          + "is enough: the gateway asks it and finds the others)",
      "—"),
  REDIS_CA_CERT(
      "path of a PEM file of the CA certificates that a `rediss://` server's certificate must "
          + "chain to (a private CA; one or several in the file)",
      "the JVM's trusted CAs"),
  REDIS_TIMEOUT(
      "how long one Redis command may take before the instance counts Redis as unreachable and "
          + "serves from its own memory, without de-duplication across instances, until Redis "
          + "answers again; raise it for a Redis far away or on a busy machine",
      "`1s`"),
  LEASE("how long a claim on work lives unless renewed (renewed every third of it)", "`15s`"),
  DATABASE_URL(
      "JDBC URL of the device and usage ledger (`jdbc:postgresql://…`; through PgBouncer too, "
          + "in transaction or session mode), and the URL its schema is migrated through when "
          + "that is another (the server behind the pooler)",
      "SQLite file under `BOLO_DATA_DIR`"),
  DATA_DIR(
      "embedded ledger and upload spool; kept 0700 (ledger, WAL and SHM 0600), fixed with "
          + "a warning at start",
      "`./bolo-data`"),
  DEVICE_TOKENS(
      "static devices, `name=token,name2=token2`, in addition to the ledger's; a name also "
          + "enrolled with `bolo devices add` stops the start (exit 2), and so does a token "
          + "estimated under 128 bits from its length and the characters it uses (32 random hex "
          + "digits or 22 random base64 characters are enough; `openssl rand -hex 24`), with a "
          + "line naming the device, not the token",
      "—"),
  MAX_UPLOAD_BYTES(
      "largest note one `POST` takes, at most the spool budget (logged at start). A larger "
          + "declared `Content-Length` gets 413 `audio_too_large` before any of the body is read, "
          + "a chunked body is cut there; the message names the limit in MB and the resumable "
          + "upload (tus at `/v1/uploads`), which takes notes up to a quarter of the spool budget",
      "`536870912` (512 MiB: a 40-minute WAV is 77 MB)"),
  UPLOAD_MEMORY_BYTES(
      "notes up to this size stay in memory; larger ones spool to disk", "`1048576`"),
  MAX_TRANSCRIPT_BYTES(
      "most of a provider's answer the gateway reads; beyond it 502 `upstream_error` "
          + "\"provider answer larger than N bytes\"",
      "`33554432` (32 MiB)"),
  ANSWER_BUDGET_BYTES(
      "provider answer bytes held at once across all notes, from the answer's arrival "
          + "until it is parsed (Gemini's: until read; a 32 MiB answer is held several times "
          + "over: bytes, text, parsed transcript). An answer that does not fit waits up to 10 s "
          + "(never past the engine's deadline for the note), then its note gets 503 "
          + "`upstream_unavailable` with `Retry-After: 2`; one larger than the budget is read "
          + "alone. With `-Xmx256m` and a stand-in provider answering 31 MB to each note, 10 "
          + "notes sent at once were all answered 200 in 5.3–6.2 s, and 20 in 11 s; with the "
          + "budget off (`1099511627776`) 2–3 of the 10 were answered and 7–8 got 500 "
          + "(OutOfMemoryError), 3 of 20",
      "heap / 8 (`33554432` with `-Xmx256m`)"),
  TRIAL_SECONDS("free audio seconds per device before 402 (`0` = unlimited)", "`0`"),
  USAGE_RETENTION(
      "usage rows and charges are kept one per request this long, then rolled up into "
          + "per-device daily totals that `./bolo usage` still reports (see "
          + "[below](devices-and-usage.md)); 1 day to 36500 days, and at least the charge "
          + "window",
      "`90d`"),
  RATE_LIMIT_PER_MINUTE(
      "requests per device per minute before 429 (`0` = off; with `BOLO_STORE=redis` "
          + "counted once for all instances)",
      "`0`"),
  WRONG_TOKENS_PER_MINUTE(
      "bearer tokens nobody owns (a device's or the admin's) one client address may send per "
          + "minute; beyond them every token from that address is answered 429 `rate_limited` "
          + "with `Retry-After` until its next minute, unknown ones without a database lookup, "
          + "except a device token that was right from that address before. The address is the "
          + "connection's (an IPv6 one by its /64), never `X-Forwarded-For`: behind a reverse "
          + "proxy every client shares the proxy's. Counted on each instance",
      "`10`"),
  UPSTREAM_TIMEOUT(
      "the engine deadline for one note: the first plus the note's length, capped at the "
          + "second. It covers connecting, sending, the first byte and the whole call, for every "
          + "engine",
      "`120s`, `15m` (offline engine: `120s` + `BOLO_OFFLINE_MAX_SECONDS`, so it can finish its "
          + "longest note)"),
  CLIENT_READ_TIMEOUT(
      "what your apps' SDK waits: read timeout = the first + half the note, capped at the "
          + "second; the pauses between attempts. Startup refuses engine deadlines that do not "
          + "outlast them (see below)",
      "the SDK's: `30s`, `120s`, `2s,5s,10s`"),
  DRAIN_TIMEOUT(
      "on SIGTERM (or Ctrl-C), how long running requests and their engine calls may finish",
      "`30s`"),
  WARMUP(
      "before `bolo serve` opens its port, how long it runs the request path on a stand-in engine "
          + "in memory (nothing reaches the real engine, store or ledger), so an instance added "
          + "to meet a surge serves at full speed from its first second; `0s`: off. Measured on "
          + "2 cores: with `30s` its first 8 s ran at 0.85 of its warm rate (p99 74 ms), with "
          + "`15s` at 0.70, with none at 0.50 (docs/performance.md)",
      "`0s`"),
  HEADER_TIMEOUT(
      "a request's headers must have arrived this long after its first byte, or the "
          + "connection is closed with 408",
      "`10s`"),
  IDLE_TIMEOUT(
      "an idle keep-alive connection is closed after this; a request waiting for its "
          + "transcript is not idle and keeps its connection until the engine deadline, nor is "
          + "an upload waiting its turn (`BOLO_REQUEST_QUEUE_WAIT`)",
      "`30s`"),
  MIN_BODY_RATE(
      "an upload must bring at least this many bytes per second, averaged over the window "
          + "(and may not fall silent for a whole window), or it ends with 408 "
          + "`request_timeout`; only time the gateway spends waiting for the client's bytes "
          + "counts, so a busy gateway never blames a fast phone. A body still arriving after "
          + "its request was answered unread (401, 429, 503, 404, an upload turned away) is "
          + "read and dropped, so the phone reads its answer, only while it keeps this rate "
          + "(from the answer on, checked after one window) and up to 26 MiB; then the "
          + "connection closes",
      "`16384`, `10s`"),
  MAX_CONCURRENT_UPLOADS(
      "bodies read at once; a further upload waits up to a second, then gets 503 "
          + "`server_unavailable` with `Retry-After`",
      "`256`"),
  UPLOAD_BUDGET_BYTES(
      "admission control: declared bytes (`Content-Length`) of upload bodies read at once. "
          + "A body over `BOLO_UPLOAD_MEMORY_BYTES` that does not fit waits its turn (first "
          + "come, first served); a body is charged at most 64 MiB (one core's share: one thread "
          + "reads it, however long it is, so a long note sent over minutes leaves the rest to "
          + "others); one larger than the whole budget runs alone; a body without a length "
          + "(chunked) counts as `BOLO_MAX_UPLOAD_BYTES`. Notes that stay in memory are "
          + "admitted at once (and counted). So the admitted bodies do not share the cores with "
          + "every other upload, which would make all of them finish late together",
      "64 MiB per core (`134217728` on 2 cores)"),
  UPLOAD_QUEUE_WAIT(
      "how long a large body waits for room in that budget; then 503 `server_unavailable` "
          + "with `Retry-After` (this wait, at least 1 s), answered before any of the body is "
          + "read. `0s` refuses at once",
      "`4s`"),
  MAX_CONCURRENT_REQUESTS(
      "upload requests (`POST` to the transcription routes, tus `POST`/`PATCH`) served at "
          + "once, from the first byte of the body to the last of the answer. More wait their "
          + "turn in arrival order, without a thread and with their bodies unread; probes, "
          + "`/metrics`, lookups, the admin API and requests without a bearer token (answered "
          + "401 at once) never wait. A request answered before its body was read leaves at "
          + "once. Each request served holds heap "
          + "(its note, the parked virtual-thread stack of its provider call, a provider "
          + "connection: about 40 KiB "
          + "for a short note, besides a 16 KiB connection buffer outside the heap), so the "
          + "default follows the heap: 2,730 with `-Xmx256m`, 10,922 with 1 GiB. "
          + "`bolo_requests_waiting` shows the line",
      "heap / 96 KiB"),
  REQUEST_QUEUE_WAIT(
      "how long such a request waits for its turn; then 503 `server_unavailable` with "
          + "`Retry-After: 5` in its endpoint's shape, its body never read (counted in "
          + "`bolo_requests_turned_away_total`). At most 2 × `BOLO_MAX_CONCURRENT_REQUESTS` wait "
          + "at once; a further one is answered so at once, as is every one with `0s`",
      "`10s`"),
  MAX_BODIES_PER_DEVICE(
      "request bodies one device sends at once (a note's `POST`, an append to a resumable "
          + "upload); a further one gets 429 `rate_limited` with `Retry-After: 2` at once, its "
          + "body unread, so one token (perhaps stolen) cannot take every upload slot",
      "`8`"),
  MAX_OPEN_UPLOADS_PER_DEVICE(
      "unfinished resumable uploads one device may have at once, on every instance together: "
          + "a creation beyond it deletes the device's oldest upload no append is storing into, "
          + "and gets 429 `rate_limited` only while every one is receiving bytes "
          + "(see `BOLO_UPLOAD_TTL`)",
      "`8`"),
  MAX_UPLOADS_PER_DEVICE(
      "the former name of `BOLO_MAX_BODIES_PER_DEVICE` and `BOLO_MAX_OPEN_UPLOADS_PER_DEVICE`, "
          + "still read for one release: set alone, it sets both, and the start logs one warning "
          + "naming them; a new name set beside it wins",
      "unset"),
  SPOOL_MAX_BYTES(
      "spool bytes in use at once by uploads larger than `BOLO_UPLOAD_MEMORY_BYTES`; "
          + "beyond it 503 `server_unavailable` with `Retry-After`, so a few long notes cannot "
          + "fill the disk. At most the room on the spool's disk at start (its free bytes and "
          + "the spool's own), with a warning when that is less. A quarter of it is the largest "
          + "resumable upload (`Tus-Max-Size`) and what one device's unfinished resumable uploads "
          + "may hold together (beyond it the device's oldest idle one is deleted, else 429)",
      "`4294967296` (4 GiB)"),
  UPLOAD_TTL(
      "how long a resumable upload (tus at `/v1/uploads`, or the IETF draft on `POST "
          + "/v1/transcriptions`) lives after its creation; then it answers 404 and is swept "
          + "with its bytes. Its bytes hold `BOLO_SPOOL_MAX_BYTES` from creation to end; a "
          + "device may have `BOLO_MAX_OPEN_UPLOADS_PER_DEVICE` unfinished at once: a creation beyond "
          + "that deletes the device's oldest upload no append is storing into (one whose "
          + "address the phone lost, say; resuming it gets 404 and starts over), and gets 429 "
          + "`rate_limited` only while every one is receiving bytes",
      "`24h`"),
  OPENAI_MODELS(
      "models a device may ask for, comma-separated; others get 422 `invalid_parameter` "
          + "naming the allowed ones",
      "the configured model only"),
  MODEL_ALIASES(
      "`alias=model,...`: names clients may send for a model; an alias and its model are one "
          + "piece of work, and `/v1/models` lists both",
      "the offline engine answers to `whisper-1`, `gpt-4o-transcribe`, `gpt-4o-mini-transcribe`"),
  OFFLINE_MAX_SECONDS(
      "the longest note the offline engine takes, alone or as a route's target; longer ones get "
          + "413 `audio_too_long` "
          + "before anything is decoded. A note is cut at its pauses and recognised on every core, "
          + "an utterance of at most 30 s at a time, so its memory does not grow with its length",
      "`3600`"),
  ADMIN_TOKEN(
      "bearer token of the operator dashboard at `/admin` and its API `/admin/api/…` "
          + "([docs/admin-api.md](admin-api.md)); at least 16 characters. Unset: neither "
          + "exists (404)",
      "—"),
  LOG_LEVEL("log level (`TRACE` … `ERROR`)", "`INFO`"),
  LOG_FORMAT(
      "`text`, or `json`: one JSON object per line (Logback's `JsonEncoder`) with `level`, "
          + "`loggerName`, `formattedMessage`, the request's `request_id` and `device` under "
          + "`mdc`, and a request line's `status` and `duration_ms` under `kvpList`",
      "`text`"),
  JAVA_OPTS(
      "JVM options `./bolo` adds (heap, GC), e.g. `-Xmx512m`; one with its own `-Xmx` (or "
          + "`-XX:MaxRAMPercentage`) replaces the default heap",
      "`-Xmx256m` (every engine: the offline model lives outside the heap)");

  /** The header of the table, as docs/configuration.md has it. */
  static final String HEADER = "| variable | meaning | default |\n|---|---|---|\n";

  private final String meaning;
  private final String defaults;

  ConfigTable(String meaning, String defaults) {
    this.meaning = meaning;
    this.defaults = defaults;
  }

  /** What the row's variables set, in Markdown. */
  public String meaning() {
    return meaning;
  }

  /** The row's defaults in words, in Markdown. */
  public String defaults() {
    return defaults;
  }

  /** The variables this row documents, in {@link Variable}'s order. */
  public List<Variable> variables() {
    return Variable.ALL.stream().filter(v -> v.row() == this).toList();
  }

  /** The whole table in Markdown, header first, one line per row, ending with a newline. */
  public static String markdown() {
    StringBuilder table = new StringBuilder(HEADER);
    for (ConfigTable row : values()) {
      String names =
          row.variables().stream().map(v -> "`" + v.name() + "`").collect(Collectors.joining(", "));
      table.append("| ").append(names).append(" | ").append(row.meaning);
      table.append(" | ").append(row.defaults).append(" |\n");
    }
    return table.toString();
  }
}
