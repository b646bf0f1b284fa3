package dev.bolo.server.http;

import dev.bolo.server.engine.ClientText;
import dev.bolo.server.transcription.NoteRefusal;
import dev.bolo.server.upload.NoteSizes;
import dev.bolo.server.upload.UploadResult;
import dev.bolo.server.work.WorkResult;
import org.jspecify.annotations.Nullable;

/**
 * The single place that maps Bolo's outcomes to HTTP statuses and codes (PROTOCOL.md's table); the
 * refusals of the admission ladder take theirs from their rung ({@link AdmissionLadder}).
 */
final class Errors {

  private Errors() {}

  static ApiError of(WorkResult.Refused refused) {
    return switch (refused.problem()) {
      case UPSTREAM_REJECTED -> new ApiError(422, "upstream_rejected", refused.message());
      case UNSUPPORTED_AUDIO -> new ApiError(415, "unsupported_audio", refused.message());
      case INVALID_AUDIO -> new ApiError(400, "invalid_audio", refused.message());
      case AUDIO_TOO_LONG -> new ApiError(413, "audio_too_long", refused.message());
      case UPSTREAM_UNAVAILABLE ->
          new ApiError(503, "upstream_unavailable", refused.message(), null, refused.retryAfter());
      case UPSTREAM_ERROR -> new ApiError(502, "upstream_error", refused.message());
      case UPSTREAM_TIMEOUT -> new ApiError(504, "upstream_timeout", refused.message());
      case SERVER_UNAVAILABLE -> serverUnavailable(refused.message(), refused.retryAfter());
      case INTERNAL -> new ApiError(500, "internal_error", refused.message());
      case QUOTA_EXHAUSTED -> new ApiError(402, "quota_exhausted", refused.message());
      case IDEMPOTENCY_KEY_REUSED ->
          new ApiError(422, "idempotency_key_reused", refused.message(), "Idempotency-Key", null);
      case IDEMPOTENCY_CONFLICT -> new ApiError(409, "idempotency_conflict", refused.message());
    };
  }

  static ApiError of(UploadResult.Invalid invalid, String audioField) {
    return switch (invalid.reason()) {
      case NOT_MULTIPART -> new ApiError(415, "unsupported_audio", invalid.message());
      case MISSING_AUDIO -> new ApiError(400, "missing_audio", invalid.message(), audioField, null);
      case EMPTY_AUDIO -> new ApiError(400, "empty_audio", invalid.message(), audioField, null);
      case TOO_LARGE -> new ApiError(413, "audio_too_large", invalid.message(), audioField, null);
      case UNSUPPORTED_AUDIO ->
          new ApiError(415, "unsupported_audio", invalid.message(), audioField, null);
      case INVALID_AUDIO -> new ApiError(400, "invalid_audio", invalid.message(), audioField, null);
      case MALFORMED, BAD_FIELD -> new ApiError(400, "invalid_parameter", invalid.message());
      case TOO_SLOW -> requestTimeout(invalid.message());
      case DEVICE_BUSY -> AdmissionLadder.DEVICE_BODIES.refusal(invalid.message());
      case BUDGET_FULL ->
          AdmissionLadder.BYTES_IN_FLIGHT.refusal(
              invalid.message(),
              java.util.Objects.requireNonNull(invalid.retryAfter(), "the budget says when"));
      case NO_SLOT -> AdmissionLadder.UPLOAD_SLOTS.refusal(invalid.message());
      case SPOOL_FULL -> AdmissionLadder.SPOOL.refusal(invalid.message());
      case SPOOL_FAILED -> serverUnavailable(invalid.message(), null);
    };
  }

  static ApiError unauthorized() {
    return AdmissionLadder.TOKEN.refusal(
        "missing or unknown device token; send Authorization: Bearer TOKEN");
  }

  /** 401 for the operator API: the admin token, not a device's, is what is missing. */
  static ApiError adminUnauthorized() {
    return new ApiError(
        401,
        "unauthorized",
        "missing or wrong admin token; send Authorization: Bearer <BOLO_ADMIN_TOKEN>");
  }

  /** 404 {@code not_found} for a device name the ledger does not know. */
  static ApiError noSuchDevice(String name) {
    return new ApiError(404, "not_found", "no device named " + name);
  }

  /** 409 {@code device_exists}: names are never reused, revoked devices' included. */
  static ApiError deviceExists(String name) {
    return new ApiError(
        409,
        "device_exists",
        "a device named " + name + " exists already (perhaps revoked); names are never reused",
        "name",
        null);
  }

  /** 413 {@code audio_too_large}, answered before the body is read; the message names the limit. */
  static ApiError tooLarge(String message) {
    return new ApiError(413, "audio_too_large", message);
  }

  /** 413 {@code audio_too_large}: a resumable upload longer than the spool can ever hold. */
  static ApiError tooLargeForResumable(long maxBytes) {
    return tooLarge(NoteSizes.tooLargeForResumable(maxBytes));
  }

  static ApiError invalid(MalformedParameterException e) {
    return invalid(
        e.parameter(),
        java.util.Objects.requireNonNullElse(e.getMessage(), "invalid " + e.parameter()));
  }

  /** A note the use case turned away before any work. */
  static ApiError of(NoteRefusal refusal) {
    return switch (refusal) {
      case NoteRefusal.Malformed m -> invalid(m.parameter(), m.message());
      case NoteRefusal.NotOffered n ->
          new ApiError(422, "invalid_parameter", n.message(), n.parameter(), null);
      case NoteRefusal.HashMismatch h ->
          hashMismatch(RequestHeaders.AUDIO_SHA256, h.claimed(), h.computed());
      case NoteRefusal.TranslationUnsupported t -> translationUnsupported(t.engine());
    };
  }

  /**
   * Whole seconds for {@code Retry-After} (RFC 9110 delay-seconds): at least 1, and at most an hour
   * whatever a provider said, so a huge value neither overflows nor parks a phone for days.
   */
  static long retryAfterSeconds(java.time.Duration retryAfter) {
    long seconds = retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
    return Math.max(1, Math.min(seconds, 3600));
  }

  static ApiError invalid(String param, String message) {
    return new ApiError(400, "invalid_parameter", message, param, null);
  }

  /**
   * 400 {@code audio_hash_mismatch}: the hash the client declared ({@code param}: the POST's
   * header, a resumable upload's {@code sha256}) is not the hash of the bytes that arrived.
   */
  static ApiError hashMismatch(String param, String claimed, String computed) {
    return new ApiError(
        400,
        "audio_hash_mismatch",
        param
            + " "
            + claimed
            + " does not match the received audio "
            + computed
            + "; the upload was damaged or the hash is wrong",
        param,
        null);
  }

  /** 429 {@code rate_limited} for a client address that sent too many tokens nobody owns. */
  static ApiError tooManyWrongTokens(java.time.Duration retryAfter) {
    return AdmissionLadder.WRONG_TOKENS.refusal(
        "too many wrong tokens from this address; retry later", retryAfter);
  }

  /** 503 {@code server_unavailable}: the gateway's own fault, and a resend may succeed. */
  static ApiError serverUnavailable(String message, java.time.@Nullable Duration retryAfter) {
    return new ApiError(
        503,
        "server_unavailable",
        message,
        null,
        retryAfter == null ? java.time.Duration.ofSeconds(5) : retryAfter);
  }

  /** 408 {@code request_timeout}: headers or body too slow; a resend on a better link may work. */
  static ApiError requestTimeout(String message) {
    return new ApiError(408, "request_timeout", message);
  }

  /**
   * An error the HTTP layer raised before any handler ran (Jetty's 400, 408, 413, 414, 431, 500):
   * the status stays, the message is Bolo's own and never Jetty's text.
   */
  static ApiError ofHttpStatus(int status) {
    return switch (status) {
      case 408 -> requestTimeout("the request arrived too slowly; resend on a better connection");
      case 413 -> new ApiError(413, "audio_too_large", "the request body is too large");
      case 414 -> new ApiError(414, "invalid_parameter", "the request URI is too long");
      case 431 ->
          new ApiError(
              431, "invalid_parameter", "the request headers are too large (8 KiB at most)");
      case 505 -> new ApiError(505, "invalid_parameter", "unsupported HTTP version; use HTTP/1.1");
      // Jetty's own 503 is RequestAdmission turning an upload away from its line.
      case 503 ->
          AdmissionLadder.REQUESTS_SERVED.refusal(
              "the gateway cannot take the request now; resend shortly");
      default ->
          status >= 500
              ? new ApiError(status, "internal_error", "internal error; the request was not served")
              : new ApiError(status, "invalid_parameter", "malformed HTTP request");
    };
  }

  /**
   * 422 {@code translation_unsupported}: the configured engine cannot translate. The
   * OpenAI-compatible engine can (the provider's {@code /audio/translations}) and so can Gemini (a
   * general model asked for English); the offline engine's model knows English speech only.
   */
  private static ApiError translationUnsupported(String engine) {
    return new ApiError(
        422,
        "translation_unsupported",
        "the "
            + engine
            + " engine cannot translate; engines that can: openai, gemini (BOLO_ENGINE)",
        "model",
        null);
  }

  /** 404 {@code not_found} for a path no route serves. */
  static ApiError noRoute(String method, String path) {
    String shown = ClientText.shown(path, 64);
    String hint =
        path.equals("/admin") || path.startsWith("/admin/")
            ? " (the operator dashboard and its API answer only when the gateway runs with"
                + " BOLO_ADMIN_TOKEN)"
            : "";
    return new ApiError(404, "not_found", "no such endpoint: " + method + " " + shown + hint);
  }

  /** 405 {@code method_not_allowed}: the path exists, with other methods. */
  static ApiError methodNotAllowed(String method, String allowed) {
    return new ApiError(405, "method_not_allowed", method + " is not allowed here; use " + allowed);
  }

  static ApiError internal() {
    return new ApiError(500, "internal_error", "internal error; the request was not transcribed");
  }

  /** 404 {@code not_found}: a lookup for a note this device has no finished transcript of. */
  static ApiError noTranscript() {
    return new ApiError(
        404,
        "not_found",
        "no finished transcript of this note with these settings for this device; upload it");
  }

  /**
   * 404 {@code model_not_found}: {@code id} is not among the models this gateway offers, which the
   * message names by every name they are accepted under ({@code allowed}).
   */
  static ApiError modelNotOffered(String id, String allowed) {
    return new ApiError(
        404,
        "model_not_found",
        "model '" + ClientText.shown(id, 64) + "' is not offered here; allowed: " + allowed,
        "model",
        null);
  }

  /** 400 {@code empty_audio} for a resumable upload announced with no bytes. */
  static ApiError emptyAudio(String message) {
    return new ApiError(400, "empty_audio", message, "audio", null);
  }

  /** 412 (tus 1.0.0): the request speaks another tus version than {@code version}. */
  static ApiError tusVersionRequired(String version) {
    return new ApiError(
        412,
        "invalid_parameter",
        "send Tus-Resumable: " + version + "; no other version is spoken");
  }

  /** 415 {@code unsupported_audio}: an append's body is not of the {@code expected} type. */
  static ApiError appendTypeRequired(String expected) {
    return new ApiError(415, "unsupported_audio", "an append's Content-Type must be " + expected);
  }

  /** 404 {@code not_found}: the upload's transcript outlived its keeping time. */
  static ApiError transcriptExpired() {
    return new ApiError(
        404,
        "not_found",
        "the transcript is no longer kept (BOLO_IDEMPOTENCY_TTL); upload the note again");
  }

  /** 404 {@code not_found}: no upload of that id for this device, or it expired. */
  static ApiError noSuchUpload() {
    return new ApiError(404, "not_found", "no such upload for this device (unknown or expired)");
  }

  /**
   * 429 {@code rate_limited}: the device's unfinished uploads hold its whole share of the spool.
   */
  static ApiError deviceSpoolShareHeld(long maxBytes) {
    return AdmissionLadder.DEVICE_SPOOL_SHARE.refusal(
        "this device's unfinished uploads, all still receiving bytes, would hold more than "
            + NoteSizes.describe(maxBytes)
            + " together; retry when one has ended");
  }

  /**
   * 429 {@code rate_limited}: the device has {@code max} unfinished uploads, all still receiving
   * bytes; one of them ends within seconds or is swept.
   */
  static ApiError tooManyUnfinishedUploads(int max) {
    return AdmissionLadder.OPEN_UPLOADS.refusal(
        "this device has "
            + max
            + " unfinished uploads, all still receiving bytes; retry when one has ended");
  }

  /** 409 {@code upload_offset_mismatch}: appends continue where the stored bytes end. */
  static ApiError wrongOffset(long offset) {
    return new ApiError(
        409,
        "upload_offset_mismatch",
        "the upload holds " + offset + " bytes; append from Upload-Offset " + offset);
  }

  /** 413 {@code audio_too_large}: an append that goes past the upload's announced length. */
  static ApiError appendOverrun(long length) {
    return new ApiError(
        413,
        "audio_too_large",
        "the append passes the upload's length of " + length + " bytes; nothing of it was kept");
  }

  /** 421 (RFC 9110) {@code wrong_instance}: the upload's bytes are held by another instance. */
  static ApiError uploadElsewhere() {
    return new ApiError(
        421,
        "wrong_instance",
        "this upload's bytes are held by another gateway instance; route every request of an"
            + " upload to one instance, by the device's token (see running several instances), or"
            + " start a new upload");
  }

  /** 423 {@code upload_locked}: an earlier append to the upload is still arriving. */
  static ApiError uploadLocked() {
    return new ApiError(
        423,
        "upload_locked",
        "an earlier append to this upload is still arriving; resume shortly",
        null,
        java.time.Duration.ofSeconds(1));
  }
}
