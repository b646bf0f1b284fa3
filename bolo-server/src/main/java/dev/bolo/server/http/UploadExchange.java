package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.audio.UploadResult;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.transcription.ResumableUploads;
import dev.bolo.server.transcription.UploadAppend;
import dev.bolo.server.transcription.UploadCreation;
import dev.bolo.server.transcription.UploadEnding;
import dev.bolo.server.work.Transcript;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What the handlers of both resumable protocols share: the way in through the {@link DeviceGate},
 * the settings of a stored upload, and the answers (native JSON errors, the transcript). Thread
 * safe.
 */
final class UploadExchange {

  private static final ObjectMapper JSON = Json.MAPPER;

  /** The upload resource both protocols append to. */
  static final String UPLOAD_PATH = "/v1/uploads/{id}";

  final ResumableUploads uploads;
  final ConnectionTimeouts timeouts;
  private final DeviceGate gate;

  UploadExchange(DeviceGate gate, ResumableUploads uploads, ConnectionTimeouts timeouts) {
    this.gate = gate;
    this.uploads = uploads;
    this.timeouts = timeouts;
  }

  /** Runs {@code step} for the request's device, once it passed the gate every request passes. */
  void handle(Context ctx, DeviceGate.Admitted step) throws Exception {
    gate.pass(ctx, "resume shortly", UploadExchange::send, step);
  }

  /** The device's upload named in the path, if it exists, is theirs and has not expired. */
  Optional<StoredUpload> uploadOf(Context ctx, Device device) {
    return uploads.find(device, ctx.pathParam("id"));
  }

  /**
   * The device's upload named in the path once no append to it is arriving here, for a client
   * asking where to resume; empty when it was answered instead (404 unknown, 423 still appending).
   */
  Optional<StoredUpload> settledUploadOf(Context ctx, Device device, String requestId) {
    Optional<StoredUpload> found = uploadOf(ctx, device);
    if (found.isEmpty()) {
      send(ctx, notFound(), requestId);
      return found;
    }
    Optional<StoredUpload> upload = uploads.settled(device, found.get());
    if (upload.isEmpty()) {
      send(ctx, locked(), requestId);
    }
    return upload;
  }

  /** {@code Upload-Expires} as tus asks: an RFC 9110 (RFC 7231) HTTP date. */
  static String httpDate(java.time.Instant instant) {
    return DateTimeFormatter.RFC_1123_DATE_TIME.format(instant.atOffset(ZoneOffset.UTC));
  }

  /** How an upload's ending is answered: the POST's own answer. */
  void sendEnding(Context ctx, String requestId, UploadEnding ending) throws IOException {
    switch (ending) {
      case UploadEnding.Transcribed t ->
          sendTranscript(ctx, requestId, t.transcript(), t.replayed());
      case UploadEnding.Refused r -> send(ctx, Errors.of(r.refused()), requestId);
      case UploadEnding.Unusable u -> send(ctx, Errors.of(u.why(), "audio"), requestId);
      case UploadEnding.HashMismatch h ->
          send(
              ctx,
              new ApiError(
                  400,
                  "audio_hash_mismatch",
                  "the declared sha256 "
                      + h.declared()
                      + " does not match the received audio "
                      + h.computed()
                      + "; the upload was damaged or the hash is wrong; nothing was transcribed",
                  "sha256",
                  null),
              requestId);
    }
  }

  /**
   * Answers a creation that made no upload: its settings refused, 429 for too many unfinished ones,
   * 503 when full.
   */
  static void refuseCreation(Context ctx, String requestId, UploadCreation creation)
      throws IOException {
    switch (creation) {
      case UploadCreation.TooMany tooMany ->
          refuseBody(
              ctx,
              new ApiError(
                  429,
                  "rate_limited",
                  "this device has "
                      + tooMany.max()
                      + " unfinished uploads, all still receiving bytes; retry when one has"
                      + " ended",
                  null,
                  Duration.ofSeconds(5)),
              requestId);
      case UploadCreation.SpoolFull full ->
          refuseBody(
              ctx,
              Errors.serverUnavailable(
                  "the gateway is holding too many uploads; retry shortly", null),
              requestId);
      case UploadCreation.Refused refused ->
          refuseBody(ctx, Errors.of(refused.refusal()), requestId);
      case UploadCreation.Created created ->
          throw new IllegalArgumentException("an upload was created: nothing to refuse");
    }
  }

  /** The native upload's 200 body. */
  static void sendTranscript(Context ctx, String requestId, Transcript transcript, boolean replayed)
      throws IOException {
    if (replayed) {
      ctx.header("Idempotent-Replayed", "true");
    }
    ctx.status(200)
        .contentType("application/json")
        .result(NativeAnswer.body(transcript, replayed, requestId));
  }

  /** 202 while the note is incomplete or being transcribed (RFC 9110 Retry-After: 1 s). */
  static void sendRunning(Context ctx) throws IOException {
    ctx.header("Retry-After", "1");
    ctx.status(202)
        .contentType("application/json")
        .result(JSON.writeValueAsBytes(JSON.createObjectNode().put("status", "running")));
  }

  /** A native JSON error; on HEAD the body is left out, as HTTP wants. */
  static void send(Context ctx, ApiError error, String requestId) {
    RequestMetrics.noteOutcome(ctx.req(), error.code());
    if (error.retryAfter() != null) {
      ctx.header("Retry-After", Long.toString(Errors.retryAfterSeconds(error.retryAfter())));
    }
    ctx.status(error.status());
    if (!ctx.method().name().equals("HEAD")) {
      ctx.contentType("application/json")
          .result(ErrorWriter.body(TranscriptionHandler.Dialect.NATIVE, error, requestId));
    }
  }

  /** An error answered before the body was read: the connection closes after it. */
  static void refuseBody(Context ctx, ApiError error, String requestId) {
    ctx.header("Connection", "close");
    send(ctx, error, requestId);
  }

  static ApiError notFound() {
    return new ApiError(404, "not_found", "no such upload for this device (unknown or expired)");
  }

  static ApiError wrongOffset(long offset) {
    return new ApiError(
        409,
        "upload_offset_mismatch",
        "the upload holds " + offset + " bytes; append from Upload-Offset " + offset);
  }

  static ApiError overrun(long length) {
    return new ApiError(
        413,
        "audio_too_large",
        "the append passes the upload's length of " + length + " bytes; nothing of it was kept");
  }

  /** 421 (RFC 9110): the upload's bytes are held by another instance. */
  static ApiError elsewhere() {
    return new ApiError(
        421,
        "wrong_instance",
        "this upload's bytes are held by another gateway instance; route every request of an"
            + " upload to one instance, by the device's token (see running several instances), or"
            + " start a new upload");
  }

  static ApiError locked() {
    return new ApiError(
        423,
        "upload_locked",
        "an earlier append to this upload is still arriving; resume shortly",
        null,
        Duration.ofSeconds(1));
  }

  static ApiError interrupted(UploadResult.Invalid why) {
    return Errors.of(why, "audio");
  }

  /** A header's value as a non-negative whole number, or null when absent or malformed. */
  static @Nullable Long nonNegative(@Nullable String header) {
    if (header == null || header.isBlank() || header.trim().length() > 18) {
      return null;
    }
    String trimmed = header.trim();
    for (int i = 0; i < trimmed.length(); i++) {
      if (!Character.isDigit(trimmed.charAt(i))) {
        return null;
      }
    }
    return Long.parseLong(trimmed);
  }

  /** Every answer to an append but a clean one. */
  static void answerAppend(Context ctx, String requestId, UploadAppend append) {
    switch (append) {
      case UploadAppend.Appended appended -> {
        ctx.header("Upload-Offset", Long.toString(appended.upload().offset()));
        ctx.status(204);
      }
      case UploadAppend.Interrupted interrupted -> {
        ctx.header("Upload-Offset", Long.toString(interrupted.upload().offset()));
        refuseBody(ctx, interrupted(interrupted.why()), requestId);
      }
      case UploadAppend.WrongOffset wrong -> {
        ctx.header("Upload-Offset", Long.toString(wrong.offset()));
        refuseBody(ctx, wrongOffset(wrong.offset()), requestId);
      }
      case UploadAppend.Overrun overrun -> refuseBody(ctx, overrun(overrun.length()), requestId);
      case UploadAppend.Inconsistent inconsistent ->
          refuseBody(
              ctx,
              Errors.invalid(
                  "Upload-Length",
                  "the note ended at "
                      + inconsistent.reached()
                      + " bytes, not at its Upload-Length of "
                      + inconsistent.length()),
              requestId);
      case UploadAppend.Elsewhere elsewhere -> refuseBody(ctx, elsewhere(), requestId);
      case UploadAppend.Gone gone -> refuseBody(ctx, notFound(), requestId);
      case UploadAppend.Locked locked -> refuseBody(ctx, locked(), requestId);
      case UploadAppend.Refused refused ->
          refuseBody(ctx, Errors.of(refused.why(), "audio"), requestId);
    }
  }

  /** Deletes the device's upload named in the path and its bytes: 204, or why not. */
  void terminate(Context ctx, String requestId, Device device) {
    Optional<StoredUpload> upload = uploadOf(ctx, device);
    if (upload.isEmpty()) {
      send(ctx, notFound(), requestId);
      return;
    }
    switch (uploads.terminate(upload.get())) {
      case DELETED -> {
        ctx.status(204);
      }
      case ELSEWHERE -> send(ctx, elsewhere(), requestId);
      case GONE -> send(ctx, notFound(), requestId);
      case BUSY -> send(ctx, locked(), requestId);
    }
  }

  /** The request body, with its idle timeout raised to the body's rate window while it is read. */
  InputStream body(Context ctx) throws IOException {
    timeouts.setIdleTimeout(ctx, timeouts.body());
    return ctx.req().getInputStream();
  }
}
