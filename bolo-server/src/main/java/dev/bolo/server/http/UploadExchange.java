package dev.bolo.server.http;

import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.transcription.ResumableUploads;
import dev.bolo.server.transcription.UploadAppend;
import dev.bolo.server.transcription.UploadCreation;
import dev.bolo.server.transcription.UploadEnding;
import dev.bolo.server.transcription.UploadProtocol;
import dev.bolo.server.work.KeptTranscript;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What the handlers of both resumable protocols share behind the {@link DeviceGate}: the upload
 * named in the path, the body of an append, and the answers (native JSON errors through the {@link
 * ErrorWriter}, the transcript). Thread safe.
 */
final class UploadExchange {

  /** The upload resource both protocols append to. */
  static final String UPLOAD_PATH = "/v1/uploads/{id}";

  final ResumableUploads resumable;
  final ConnectionTimeouts timeouts;

  UploadExchange(ResumableUploads resumable, ConnectionTimeouts timeouts) {
    this.resumable = resumable;
    this.timeouts = timeouts;
  }

  /** The device's upload named in the path, if it exists, is theirs and has not expired. */
  Optional<StoredUpload> uploadOf(Context ctx, Device device) {
    return resumable.find(device, ctx.pathParam("id"));
  }

  /**
   * The device's upload named in the path of an append whose {@code Upload-Offset} is where the
   * upload stands; empty when the request was answered instead, before its body was read: 404
   * unknown, 409 at another offset ({@code describe} first says where the upload stands, in the
   * protocol's headers).
   */
  Optional<StoredUpload> appendTarget(
      Context ctx, Device device, BiConsumer<Context, StoredUpload> describe) {
    Optional<StoredUpload> upload = uploadOf(ctx, device);
    if (upload.isEmpty()) {
      refuseBody(ctx, Errors.noSuchUpload());
      return upload;
    }
    @Nullable Long offset = nonNegative(ctx.header("Upload-Offset"));
    if (offset == null || offset != upload.get().offset()) {
      describe.accept(ctx, upload.get());
      refuseBody(ctx, Errors.wrongOffset(upload.get().offset()));
      return Optional.empty();
    }
    return upload;
  }

  /**
   * The device's upload named in the path once no append to it is arriving here, for a client
   * asking where to resume; empty when it was answered instead (404 unknown, 423 still appending).
   */
  Optional<StoredUpload> settledUploadOf(Context ctx, Device device) {
    Optional<StoredUpload> found = uploadOf(ctx, device);
    if (found.isEmpty()) {
      refuse(ctx, Errors.noSuchUpload());
      return found;
    }
    Optional<StoredUpload> upload = resumable.settled(device, found.get());
    if (upload.isEmpty()) {
      refuse(ctx, Errors.uploadLocked());
    }
    return upload;
  }

  /** {@code Upload-Expires} as tus asks: an RFC 9110 (RFC 7231) HTTP date. */
  static String httpDate(java.time.Instant instant) {
    return DateTimeFormatter.RFC_1123_DATE_TIME.format(instant.atOffset(ZoneOffset.UTC));
  }

  /** How an upload's ending is answered: the POST's own answer. */
  static void sendEnding(Context ctx, UploadEnding ending) throws IOException {
    switch (ending) {
      case UploadEnding.Transcribed t ->
          sendTranscript(ctx, t.transcript(), t.format(), t.replayed(), t.model());
      case UploadEnding.Failed r -> refuse(ctx, Errors.of(r.refused()));
      case UploadEnding.Unusable u -> refuse(ctx, Errors.of(u.why(), Dialect.NATIVE.audioField()));
      case UploadEnding.HashMismatch h ->
          refuse(ctx, Errors.hashMismatch("sha256", h.declared(), h.computed()));
    }
  }

  /** What a creation request says of its note besides its length, read in its protocol's way. */
  record NoteFields(
      Map<String, String> settings, @Nullable String sha256, @Nullable String idempotencyKey) {}

  /** Reads a creation request's {@link NoteFields}. */
  @FunctionalInterface
  interface NoteFieldsReader {
    /**
     * @throws MalformedParameterException if a field is malformed
     */
    NoteFields read(Context ctx);
  }

  /**
   * Creates the upload a creation request asks for, or answers why not before its body is read: a
   * note longer than the most a note may be, an empty one, a malformed field, the use case's
   * refusal.
   *
   * @param length the note's length in bytes, as the request declared it
   * @param noBytes what a request that declared an empty note is told
   * @return the new upload; empty when the request was answered instead
   */
  Optional<StoredUpload> create(
      Context ctx,
      Device device,
      UploadProtocol protocol,
      long length,
      String noBytes,
      NoteFieldsReader reader) {
    long max = resumable.maxBytes();
    if (length > max) {
      refuseBody(ctx, Errors.tooLargeForResumable(max));
      return Optional.empty();
    }
    if (length == 0) {
      refuseBody(ctx, Errors.emptyAudio(noBytes));
      return Optional.empty();
    }
    NoteFields note;
    try {
      note = reader.read(ctx);
    } catch (MalformedParameterException e) {
      refuseBody(ctx, Errors.invalid(e));
      return Optional.empty();
    }
    UploadCreation creation =
        resumable.create(
            device, protocol, length, note.settings(), note.sha256(), note.idempotencyKey());
    if (!(creation instanceof UploadCreation.Created created)) {
      refuseCreation(ctx, creation);
      return Optional.empty();
    }
    return Optional.of(created.upload());
  }

  /**
   * Answers a creation that made no upload: its settings refused, 429 for too many unfinished ones
   * or too many of their bytes, 503 when full.
   */
  private static void refuseCreation(Context ctx, UploadCreation creation) {
    switch (creation) {
      case UploadCreation.TooMany tooMany ->
          refuseBody(ctx, Errors.tooManyUnfinishedUploads(tooMany.max()));
      case UploadCreation.DeviceFull full ->
          refuseBody(ctx, Errors.deviceSpoolShareHeld(full.maxBytes()));
      case UploadCreation.SpoolFull full ->
          refuseBody(
              ctx,
              AdmissionLadder.SPOOL.refusal(
                  "the gateway is holding too many uploads; retry shortly"));
      case UploadCreation.Refused refused -> refuseBody(ctx, Errors.of(refused.refusal()));
      case UploadCreation.Created created ->
          throw new IllegalArgumentException("an upload was created: nothing to refuse");
    }
  }

  /** The native upload's 200 body. */
  static void sendTranscript(
      Context ctx, KeptTranscript transcript, ResponseFormat format, boolean replayed, String model)
      throws IOException {
    if (replayed) {
      ctx.header("Idempotent-Replayed", "true");
    }
    AnswerHeaders.nameWork(ctx, transcript, model);
    ctx.status(200)
        .contentType("application/json")
        .result(
            NativeAnswer.body(transcript, format, replayed, RequestLog.requestIdOf(ctx), model));
  }

  /** A native JSON error; on HEAD the body is left out, as HTTP wants. */
  static void refuse(Context ctx, ApiError error) {
    ErrorWriter.write(ctx, Dialect.NATIVE, error);
  }

  /** A native error answered before the body was read ({@link ErrorWriter#refuseBody}). */
  static void refuseBody(Context ctx, ApiError error) {
    ErrorWriter.refuseBody(ctx, Dialect.NATIVE, error);
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
  static void answerAppend(Context ctx, UploadAppend append) {
    switch (append) {
      case UploadAppend.Appended appended -> {
        ctx.header("Upload-Offset", Long.toString(appended.upload().offset()));
        ctx.status(204);
      }
      case UploadAppend.Interrupted interrupted -> {
        ctx.header("Upload-Offset", Long.toString(interrupted.upload().offset()));
        refuseBody(ctx, Errors.of(interrupted.why(), Dialect.NATIVE.audioField()));
      }
      case UploadAppend.WrongOffset wrong -> {
        ctx.header("Upload-Offset", Long.toString(wrong.offset()));
        refuseBody(ctx, Errors.wrongOffset(wrong.offset()));
      }
      case UploadAppend.Overrun overrun -> refuseBody(ctx, Errors.appendOverrun(overrun.length()));
      case UploadAppend.Inconsistent inconsistent ->
          refuseBody(
              ctx,
              Errors.invalid(
                  "Upload-Length",
                  "the note ended at "
                      + inconsistent.reached()
                      + " bytes, not at its Upload-Length of "
                      + inconsistent.length()));
      case UploadAppend.Elsewhere elsewhere -> refuseBody(ctx, Errors.uploadElsewhere());
      case UploadAppend.Gone gone -> refuseBody(ctx, Errors.noSuchUpload());
      case UploadAppend.Locked locked -> refuseBody(ctx, Errors.uploadLocked());
      case UploadAppend.Unusable refused ->
          refuseBody(ctx, Errors.of(refused.why(), Dialect.NATIVE.audioField()));
    }
  }

  /** Deletes the device's upload named in the path and its bytes: 204, or why not. */
  void terminate(Context ctx) {
    Device device = DeviceGate.device(ctx);
    Optional<StoredUpload> upload = uploadOf(ctx, device);
    if (upload.isEmpty()) {
      refuse(ctx, Errors.noSuchUpload());
      return;
    }
    switch (resumable.terminate(upload.get())) {
      case DELETED -> ctx.status(204);
      case ELSEWHERE -> refuse(ctx, Errors.uploadElsewhere());
      case GONE -> refuse(ctx, Errors.noSuchUpload());
      case BUSY -> refuse(ctx, Errors.uploadLocked());
    }
  }

  /**
   * Appends the request's body to {@code upload} at {@code offset}, its idle timeout raised to the
   * body's rate window while it is read; {@code last} when the client says it ends the note.
   */
  UploadAppend appendBody(
      Context ctx, Device device, StoredUpload upload, long offset, boolean last)
      throws IOException {
    timeouts.setIdleTimeout(ctx, timeouts.body());
    try {
      InputStream body = ctx.req().getInputStream();
      return resumable.append(
          device,
          upload,
          offset,
          ctx.req().getContentLengthLong(),
          body,
          last,
          RequestLog.requestIdOf(ctx));
    } finally {
      timeouts.setIdleTimeout(ctx, timeouts.idle());
    }
  }
}
