package dev.bolo.server.upload;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The answer of {@link UploadReader#read}: the upload, or why it cannot be used. */
public sealed interface UploadResult {

  /** The upload was read whole; the caller owns it and must close it. */
  record Received(Upload upload) implements UploadResult {}

  /**
   * The upload is unusable; nothing was kept.
   *
   * @param retryAfter when a resend may succeed, where the gateway knows (RFC 9110 Retry-After)
   */
  record Invalid(Reason reason, String message, @Nullable Duration retryAfter)
      implements UploadResult {
    /** A refusal without a known time to resend. */
    public Invalid(Reason reason, String message) {
      this(reason, message, null);
    }
  }

  /** Why an upload was refused. */
  enum Reason {
    /** The body is not multipart/form-data. */
    NOT_MULTIPART,
    /** No part named {@code audio} or {@code file}. */
    MISSING_AUDIO,
    /** The audio part has no bytes. */
    EMPTY_AUDIO,
    /** The audio exceeds the size limit; the rest was not read. */
    TOO_LARGE,
    /** The audio is not a recognised container. */
    UNSUPPORTED_AUDIO,
    /** The container's headers contradict themselves or the bytes, so its length is unknowable. */
    INVALID_AUDIO,
    /** The body ended early or is not well-formed multipart. */
    MALFORMED,
    /** A text part is too long or there are too many of them. */
    BAD_FIELD,
    /** The body arrived slower than the minimum rate, or stopped arriving. */
    TOO_SLOW,
    /** This device is already sending as many bodies at once as one device may. */
    DEVICE_BUSY,
    /** The byte budget had no room for the body within the wait; carries when to resend. */
    BUDGET_FULL,
    /** No upload slot came free within the wait. */
    NO_SLOT,
    /** Spooling the body would pass the spool's byte budget. */
    SPOOL_FULL,
    /** The spool cannot be written: the gateway's disk, not the client. */
    SPOOL_FAILED
  }
}
