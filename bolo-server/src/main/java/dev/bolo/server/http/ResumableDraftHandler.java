package dev.bolo.server.http;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.transcription.SettingFields;
import dev.bolo.server.transcription.UploadAppend;
import dev.bolo.server.transcription.UploadEnding;
import dev.bolo.server.transcription.UploadProtocol;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Resumable Uploads for HTTP (draft-ietf-httpbis-resumable-upload-05, interop version 6, as {@code
 * tus-js-client}'s {@code ietf-draft-05} protocol speaks it) on {@code POST /v1/transcriptions}
 * itself: a POST carrying {@code Upload-Draft-Interop-Version: 6} creates an upload resource at
 * {@code /v1/uploads/{id}} (named in the final response's {@code Location}), HEAD tells its offset,
 * PATCH appends, DELETE cancels. The response to the request that completes the upload is the
 * transcription answer itself: 200 with the POST's JSON, or its error. The note's settings travel
 * as query parameters named like the form fields, its declared hash in {@code X-Bolo-Audio-Sha256}.
 * Thread safe.
 */
final class ResumableDraftHandler {

  static final String INTEROP_VERSION = "Upload-Draft-Interop-Version";
  private static final String VERSION = "6";

  private final UploadExchange exchange;

  ResumableDraftHandler(UploadExchange exchange) {
    this.exchange = exchange;
  }

  /** Whether a request speaks the draft: it carries its interop version header. */
  static boolean isDraft(Context ctx) {
    return ctx.header(INTEROP_VERSION) != null;
  }

  /** Sends a request to the draft's handler when it speaks the draft, else to {@code other}. */
  static Handler or(Handler draft, Handler other) {
    return ctx -> {
      if (isDraft(ctx)) {
        draft.handle(ctx);
      } else {
        other.handle(ctx);
      }
    };
  }

  /** {@code DELETE /v1/uploads/{id}}: the upload is cancelled. */
  void delete(Context ctx) {
    exchange.terminate(ctx);
  }

  private static @Nullable ApiError versionError(Context ctx) {
    ctx.header(INTEROP_VERSION, VERSION);
    String version = ctx.header(INTEROP_VERSION);
    if (version != null && version.trim().equals(VERSION)) {
      return null;
    }
    return Errors.invalid(
        INTEROP_VERSION,
        "only interop version " + VERSION + " (draft-ietf-httpbis-resumable-upload-05) is spoken");
  }

  /** RFC 8941 boolean: {@code ?1} or {@code ?0}; null when absent or anything else. */
  private static @Nullable Boolean uploadComplete(Context ctx) {
    String value = ctx.header("Upload-Complete");
    if (value == null) {
      return null;
    }
    return switch (value.trim()) {
      case "?1" -> true;
      case "?0" -> false;
      default -> null;
    };
  }

  /**
   * Whether a request that carries a body (creation, append) says it ends the note, after checking
   * it speaks the draft; null when it was refused, before its body was read.
   */
  private static @Nullable Boolean appendable(Context ctx) {
    ApiError wrongVersion = versionError(ctx);
    if (wrongVersion != null) {
      UploadExchange.refuseBody(ctx, wrongVersion);
      return null;
    }
    Boolean complete = uploadComplete(ctx);
    if (complete == null) {
      UploadExchange.refuseBody(
          ctx, Errors.invalid("Upload-Complete", "Upload-Complete must be ?1 or ?0"));
    }
    return complete;
  }

  /** {@code POST /v1/transcriptions} speaking the draft: a new upload with its first bytes. */
  void create(Context ctx) throws IOException {
    Device device = DeviceGate.device(ctx);
    Boolean complete = appendable(ctx);
    if (complete == null) {
      return;
    }
    long max = exchange.resumable.maxBytes();
    long contentLength = ctx.req().getContentLengthLong();
    @Nullable Long length = UploadExchange.nonNegative(ctx.header("Upload-Length"));
    if (length == null && complete && contentLength >= 0) {
      length = contentLength;
    }
    // The spool budget is held for the note's length from the start, so it must be known.
    if (length == null) {
      UploadExchange.refuseBody(
          ctx,
          Errors.invalid(
              "Upload-Length", "send Upload-Length: the note's size in bytes (1 to " + max + ")"));
      return;
    }
    // A body longer than the most a note may be is refused whatever length the note declares.
    if (contentLength > max) {
      UploadExchange.refuseBody(ctx, Errors.tooLargeForResumable(max));
      return;
    }
    Optional<StoredUpload> created =
        exchange.create(
            ctx,
            device,
            UploadProtocol.IETF,
            length,
            "the note has no bytes",
            ResumableDraftHandler::noteFieldsOf);
    if (created.isEmpty()) {
      return;
    }
    StoredUpload upload = created.get();
    String location = TusHandler.COLLECTION + "/" + upload.id();
    // No 104 Upload Resumption Supported: Jetty 12's HTTP/1.1 generator writes header fields only
    // for the interim statuses 101 and 103, so a 104 would go out without the Location the draft
    // requires. Every final response to the POST carries it instead.
    ctx.header("Location", location);
    append(ctx, device, upload, 0, complete, true);
  }

  /** {@code HEAD /v1/uploads/{id}}: where to resume. */
  void head(Context ctx) {
    Device device = DeviceGate.device(ctx);
    ctx.header("Cache-Control", "no-store");
    ApiError wrongVersion = versionError(ctx);
    if (wrongVersion != null) {
      UploadExchange.refuse(ctx, wrongVersion);
      return;
    }
    Optional<StoredUpload> upload = exchange.settledUploadOf(ctx, device);
    if (upload.isEmpty()) {
      return;
    }
    describe(ctx, upload.get());
    ctx.status(204);
  }

  private static void describe(Context ctx, StoredUpload upload) {
    ctx.header("Upload-Offset", Long.toString(upload.offset()));
    ctx.header("Upload-Complete", upload.state() == StoredUpload.State.OPEN ? "?0" : "?1");
    if (upload.hasLength()) {
      ctx.header("Upload-Length", Long.toString(upload.length()));
    }
  }

  /** {@code PATCH /v1/uploads/{id}}: an append, perhaps the last. */
  void patch(Context ctx) throws IOException {
    Device device = DeviceGate.device(ctx);
    Boolean complete = appendable(ctx);
    if (complete == null) {
      return;
    }
    Optional<StoredUpload> upload =
        exchange.appendTarget(ctx, device, ResumableDraftHandler::describe);
    if (upload.isEmpty()) {
      return;
    }
    append(ctx, device, upload.get(), upload.get().offset(), complete, false);
  }

  /**
   * Appends the body; when it completes the note, waits for the transcription and answers it as the
   * POST would.
   */
  private void append(
      Context ctx,
      Device device,
      StoredUpload upload,
      long offset,
      boolean complete,
      boolean created)
      throws IOException {
    UploadAppend append = exchange.appendBody(ctx, device, upload, offset, complete);
    if (!(append instanceof UploadAppend.Appended appended)) {
      UploadExchange.answerAppend(ctx, append);
      return;
    }
    describe(ctx, appended.upload());
    CompletableFuture<UploadEnding> ending = appended.ending();
    if (ending == null) {
      ctx.status(created ? 201 : 204);
      return;
    }
    ctx.header("Upload-Complete", "?1");
    answer(ctx, ending);
  }

  /** The transcription answer to the request that completed the upload. */
  private void answer(Context ctx, CompletableFuture<UploadEnding> ending) throws IOException {
    Duration wait = exchange.timeouts.answer();
    exchange.timeouts.setIdleTimeout(ctx, wait);
    try {
      UploadExchange.sendEnding(ctx, ending.get(wait.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      // Not expected: the engine's deadline is shorter. The phone asks for the answer later.
      RunningAnswer.send(ctx, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      RunningAnswer.send(ctx, null);
    } catch (ExecutionException e) {
      throw new IllegalStateException("an upload's ending never fails", e);
    } finally {
      exchange.timeouts.setIdleTimeout(ctx, exchange.timeouts.idle());
    }
  }

  /** A creation's settings from its query, its hash and idempotency key from its headers. */
  private static UploadExchange.NoteFields noteFieldsOf(Context ctx) {
    return new UploadExchange.NoteFields(
        fieldsOf(ctx),
        RequestHeaders.audioSha256(RequestHeaders.single(ctx, RequestHeaders.AUDIO_SHA256)),
        RequestHeaders.idempotencyKey(RequestHeaders.single(ctx, RequestHeaders.IDEMPOTENCY_KEY)));
  }

  /** The note's settings from query parameters named like the POST's form fields. */
  private static Map<String, String> fieldsOf(Context ctx) {
    QueryEscapes.check(ctx.queryString());
    MalformedParameterException.ifRepeated(ctx::queryParams, SettingFields.SINGLE_VALUED);
    Map<String, String> fields = new LinkedHashMap<>();
    for (String name : SettingFields.SINGLE_VALUED) {
      List<String> values = ctx.queryParams(name);
      if (!values.isEmpty()) {
        fields.put(name, values.get(0));
      }
    }
    List<String> granularities = new ArrayList<>(ctx.queryParams("timestamp_granularities[]"));
    granularities.addAll(ctx.queryParams("timestamp_granularities"));
    if (!granularities.isEmpty()) {
      fields.put("timestamp_granularities", String.join(",", granularities));
    }
    return fields;
  }
}
