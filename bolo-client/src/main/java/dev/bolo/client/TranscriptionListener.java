package dev.bolo.client;

import java.time.Duration;

/**
 * Progress of notes, for an app to show "retrying in 5 s…". Every method has an empty default.
 *
 * <p>Methods are called on the thread transcribing the note, so they must be quick and must be
 * thread-safe when several notes are in flight. An exception thrown here ends the note's
 * transcription with that exception.
 */
public interface TranscriptionListener {

  /** A listener that ignores every event. */
  TranscriptionListener NONE = new TranscriptionListener() {};

  /** An upload is about to start. */
  default void attemptStarted(Attempt attempt) {}

  /**
   * {@code failed} ended with a transient failure and the note will be sent again after {@code
   * delay}, unless it is cancelled first.
   */
  default void resendScheduled(Attempt failed, Duration delay, Failure reason) {}

  /** No further attempt will be made for this note; {@code last} was the final attempt. */
  default void gaveUp(Attempt last, Failure lastFailure) {}

  /** {@code attempt} produced the transcript. */
  default void succeeded(Attempt attempt, Transcript transcript) {}
}
