package dev.bolo.server.transcription;

import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.upload.UploadResult;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** The answer to an append to a resumable upload. */
public sealed interface UploadAppend {

  /**
   * Stored; {@code ending} is set when this append brought the last byte, and completes once the
   * note is transcribed (or refused).
   */
  record Appended(StoredUpload upload, @Nullable CompletableFuture<UploadEnding> ending)
      implements UploadAppend {}

  /** Stored up to where the body broke off or was too slow; resume from the upload's offset. */
  record Interrupted(StoredUpload upload, UploadResult.Invalid why) implements UploadAppend {}

  /** The client's offset is not the stored one. */
  record WrongOffset(long offset) implements UploadAppend {}

  /** The body would pass the upload's length; nothing of it was kept. */
  record Overrun(long length) implements UploadAppend {}

  /** The client ended the note at {@code reached} bytes, not at the length it announced. */
  record Inconsistent(long reached, long length) implements UploadAppend {}

  /** Another instance holds this upload's bytes. */
  record Elsewhere() implements UploadAppend {}

  /** Deleted or expired while this append waited for the one before it. */
  record Gone() implements UploadAppend {}

  /** An earlier append to this upload is still being read. */
  record Locked() implements UploadAppend {}

  /** Refused before reading (device or gateway busy). */
  record Unusable(UploadResult.Invalid why) implements UploadAppend {}
}
