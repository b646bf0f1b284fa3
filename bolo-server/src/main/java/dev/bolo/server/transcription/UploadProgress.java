package dev.bolo.server.transcription;

import org.jspecify.annotations.Nullable;

/** How far the transcription of a resumable upload is. */
public sealed interface UploadProgress {

  /** Bytes are still missing. */
  record Incomplete() implements UploadProgress {}

  /**
   * The note is being transcribed.
   *
   * @param progress how far the work has got, when it runs on this instance; else null
   */
  record Running(@Nullable WorkProgress progress) implements UploadProgress {}

  /** It ended so. */
  record Ended(UploadEnding ending) implements UploadProgress {}

  /** Transcribed, but the replay store no longer holds the transcript. */
  record Gone() implements UploadProgress {}
}
