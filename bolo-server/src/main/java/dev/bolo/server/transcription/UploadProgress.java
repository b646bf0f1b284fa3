package dev.bolo.server.transcription;

/** How far the transcription of a resumable upload is. */
public sealed interface UploadProgress {

  /** Bytes are still missing. */
  record Incomplete() implements UploadProgress {}

  /** The note is being transcribed. */
  record Running() implements UploadProgress {}

  /** It ended so. */
  record Ended(UploadEnding ending) implements UploadProgress {}

  /** Transcribed, but the replay store no longer holds the transcript. */
  record Gone() implements UploadProgress {}
}
