package dev.bolo.server.transcription;

/** How the termination of a resumable upload ended. */
public enum UploadTermination {
  /** The upload and its bytes are deleted. */
  DELETED,
  /** Another instance holds the bytes; only it may delete them. */
  ELSEWHERE,
  /** Already gone. */
  GONE,
  /** An append to it is still arriving. */
  BUSY
}
