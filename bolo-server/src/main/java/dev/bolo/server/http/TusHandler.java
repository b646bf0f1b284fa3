package dev.bolo.server.http;

import dev.bolo.server.engine.ClientText;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.transcription.UploadAppend;
import dev.bolo.server.transcription.UploadProgress;
import dev.bolo.server.transcription.UploadProtocol;
import io.javalin.http.Context;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * tus 1.0.0 at {@code /v1/uploads} with the creation, creation-with-upload, termination and
 * expiration extensions: a note uploaded in as many appends as the phone's link needs, transcribed
 * like a POST when its last byte arrives, its answer fetched with {@code GET
 * /v1/uploads/{id}/transcription}. Thread safe.
 */
final class TusHandler {

  static final String COLLECTION = "/v1/uploads";
  static final String TRANSCRIPTION = "/v1/uploads/{id}/transcription";

  private static final String VERSION = "1.0.0";
  private static final String OCTET_STREAM = "application/offset+octet-stream";

  /** The metadata keys a note's settings travel in: the POST's form field names. */
  private static final List<String> SETTING_KEYS =
      List.of(
          "model",
          "language",
          "prompt",
          "temperature",
          "response_format",
          "timestamp_granularities");

  /** tus metadata is a header: a few settings and a prompt fit well within this. */
  private static final int MAX_METADATA_CHARS = 32 * 1024;

  private final UploadExchange exchange;

  TusHandler(UploadExchange exchange) {
    this.exchange = exchange;
  }

  /** {@code OPTIONS /v1/uploads}: what this server speaks; no token needed. */
  void options(Context ctx) {
    ctx.header("Tus-Resumable", VERSION);
    ctx.header("Tus-Version", VERSION);
    ctx.header("Tus-Extension", "creation,creation-with-upload,termination,expiration");
    ctx.header("Tus-Max-Size", Long.toString(exchange.resumable.maxBytes()));
    ctx.status(204);
  }

  /** tus: every request but OPTIONS says the version it speaks; 412 names the one we do. */
  private static boolean speaksTus(Context ctx) {
    ctx.header("Tus-Resumable", VERSION);
    String version = ctx.header("Tus-Resumable");
    if (version != null && version.trim().equals(VERSION)) {
      return true;
    }
    ctx.header("Tus-Version", VERSION);
    return false;
  }

  /**
   * {@code POST /v1/uploads}: a new upload, perhaps with its first bytes (creation-with-upload).
   */
  void create(Context ctx) throws IOException {
    Device device = DeviceGate.device(ctx);
    if (!speaksTus(ctx)) {
      UploadExchange.refuseBody(ctx, Errors.tusVersionRequired(VERSION));
      return;
    }
    long max = exchange.resumable.maxBytes();
    @Nullable Long length = UploadExchange.nonNegative(ctx.header("Upload-Length"));
    if (length == null) {
      UploadExchange.refuseBody(
          ctx,
          Errors.invalid(
              "Upload-Length",
              "Upload-Length must be the note's size in bytes (1 to " + max + ")"));
      return;
    }
    Optional<StoredUpload> created =
        exchange.create(
            ctx,
            device,
            UploadProtocol.TUS,
            length,
            "Upload-Length is 0: a note has bytes",
            TusHandler::noteFieldsOf);
    if (created.isEmpty()) {
      return;
    }
    StoredUpload upload = created.get();
    ctx.header("Location", COLLECTION + "/" + upload.id());
    ctx.header("Upload-Expires", UploadExchange.httpDate(upload.expiresAt()));
    if (!isOctetStream(ctx) || ctx.req().getContentLengthLong() == 0) {
      ctx.header("Upload-Offset", "0");
      ctx.status(201);
      return;
    }
    // creation-with-upload: the body is the first append.
    UploadAppend append = exchange.appendBody(ctx, device, upload, 0, false);
    switch (append) {
      case UploadAppend.Appended appended -> {
        ctx.header("Upload-Offset", Long.toString(appended.upload().offset()));
        ctx.status(201);
      }
      default -> UploadExchange.answerAppend(ctx, append);
    }
  }

  /** A creation's settings and hash from its {@code Upload-Metadata}. */
  private static UploadExchange.NoteFields noteFieldsOf(Context ctx) {
    Map<String, String> fields = metadataOf(ctx.header("Upload-Metadata"));
    @Nullable String sha256 = fields.remove("sha256");
    if (sha256 != null && !RequestHeaders.HEX_SHA256.matcher(sha256.trim()).matches()) {
      throw new MalformedParameterException("sha256", "metadata sha256 must be 64 hex digits");
    }
    return new UploadExchange.NoteFields(
        fields,
        sha256 == null ? null : sha256.trim(),
        RequestHeaders.idempotencyKey(ctx.header(RequestHeaders.IDEMPOTENCY_KEY)));
  }

  private static boolean isOctetStream(Context ctx) {
    String type = ctx.req().getContentType();
    return type != null && type.trim().toLowerCase(Locale.ROOT).startsWith(OCTET_STREAM);
  }

  /** {@code HEAD /v1/uploads/{id}}: where to resume. */
  void head(Context ctx) {
    Device device = DeviceGate.device(ctx);
    ctx.header("Cache-Control", "no-store");
    if (!speaksTus(ctx)) {
      UploadExchange.refuse(ctx, Errors.tusVersionRequired(VERSION));
      return;
    }
    Optional<StoredUpload> upload = exchange.settledUploadOf(ctx, device);
    if (upload.isEmpty()) {
      return;
    }
    ctx.header("Upload-Offset", Long.toString(upload.get().offset()));
    ctx.header("Upload-Length", Long.toString(upload.get().length()));
    ctx.header("Upload-Expires", UploadExchange.httpDate(upload.get().expiresAt()));
    ctx.status(200);
  }

  /** {@code PATCH /v1/uploads/{id}}: an append at the stored offset. */
  void patch(Context ctx) throws IOException {
    Device device = DeviceGate.device(ctx);
    if (!speaksTus(ctx)) {
      UploadExchange.refuseBody(ctx, Errors.tusVersionRequired(VERSION));
      return;
    }
    if (!isOctetStream(ctx)) {
      UploadExchange.refuseBody(ctx, Errors.appendTypeRequired(OCTET_STREAM));
      return;
    }
    Optional<StoredUpload> upload =
        exchange.appendTarget(
            ctx, device, (c, at) -> c.header("Upload-Offset", Long.toString(at.offset())));
    if (upload.isEmpty()) {
      return;
    }
    UploadAppend append =
        exchange.appendBody(ctx, device, upload.get(), upload.get().offset(), false);
    if (append instanceof UploadAppend.Appended appended) {
      ctx.header("Upload-Offset", Long.toString(appended.upload().offset()));
      ctx.header("Upload-Expires", UploadExchange.httpDate(appended.upload().expiresAt()));
      ctx.status(204);
      return;
    }
    UploadExchange.answerAppend(ctx, append);
  }

  /** {@code DELETE /v1/uploads/{id}}: termination. */
  void delete(Context ctx) {
    if (!speaksTus(ctx)) {
      UploadExchange.refuse(ctx, Errors.tusVersionRequired(VERSION));
      return;
    }
    exchange.terminate(ctx);
  }

  /** {@code GET /v1/uploads/{id}/transcription}: the note's answer, waiting for it if asked. */
  void transcription(Context ctx) throws IOException, InterruptedException {
    Device device = DeviceGate.device(ctx);
    Optional<StoredUpload> upload = exchange.uploadOf(ctx, device);
    if (upload.isEmpty()) {
      UploadExchange.refuse(ctx, Errors.noSuchUpload());
      return;
    }
    if (ctx.queryParams("wait").size() > 1) {
      UploadExchange.refuse(ctx, Errors.invalid("wait", "wait must be given at most once"));
      return;
    }
    Duration wait;
    try {
      QueryEscapes.check(ctx.queryString());
      wait = LookupHandler.waitOf(ctx.queryParam("wait"));
    } catch (MalformedParameterException e) {
      UploadExchange.refuse(ctx, Errors.invalid(e));
      return;
    }
    // Waiting for running work is not idleness: keep the connection for the wait.
    exchange.timeouts.setIdleTimeout(ctx, exchange.timeouts.idle().plus(wait));
    UploadProgress progress;
    try {
      progress =
          exchange.resumable.transcription(device, upload.get(), wait, RequestLog.requestIdOf(ctx));
    } finally {
      exchange.timeouts.setIdleTimeout(ctx, exchange.timeouts.idle());
    }
    switch (progress) {
      case UploadProgress.Incomplete incomplete -> RunningAnswer.send(ctx, null);
      case UploadProgress.Running running -> RunningAnswer.send(ctx, running.progress());
      case UploadProgress.Ended ended -> UploadExchange.sendEnding(ctx, ended.ending());
      case UploadProgress.Gone gone -> UploadExchange.refuse(ctx, Errors.transcriptExpired());
    }
  }

  /**
   * tus's {@code Upload-Metadata}: comma-separated {@code key base64(value)} pairs; a key alone has
   * an empty value. Only settings and {@code sha256} are kept; {@code filename} and keys other
   * clients add are ignored.
   */
  static Map<String, String> metadataOf(@Nullable String header) {
    Map<String, String> fields = new LinkedHashMap<>();
    if (header == null || header.isBlank()) {
      return fields;
    }
    if (header.length() > MAX_METADATA_CHARS) {
      throw new MalformedParameterException(
          "Upload-Metadata", "Upload-Metadata exceeds " + MAX_METADATA_CHARS + " characters");
    }
    for (String pair : header.split(",")) {
      String trimmed = pair.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      String[] parts = trimmed.split(" ", -1);
      if (parts.length > 2 || parts[0].isEmpty()) {
        throw new MalformedParameterException(
            "Upload-Metadata",
            "Upload-Metadata pairs are 'key base64value': " + ClientText.shown(trimmed, 80));
      }
      String key = parts[0];
      String value;
      try {
        value =
            parts.length == 1
                ? ""
                : new String(Base64.getDecoder().decode(parts[1]), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new MalformedParameterException(
            "Upload-Metadata",
            "the value of metadata key " + ClientText.shown(key, 80) + " is not base64");
      }
      if (SETTING_KEYS.contains(key) || key.equals("sha256")) {
        if (fields.put(key, value) != null) {
          throw new MalformedParameterException(key, key + " must be given at most once");
        }
      }
    }
    return fields;
  }
}
