package dev.bolo.client;

import java.time.Duration;

/**
 * Progress of notes, for an app to show "uploading 40 %" or "retrying in 5 s…". Every method has an
 * empty default. Each event names its note: {@link Attempt#idempotencyKey()}, or {@code noteKey},
 * is the note's {@code Idempotency-Key}, the same as {@link TranscriptionHandle#noteKey()}.
 *
 * <p>For each note, {@link #ended} is called exactly once, last. Methods are called on OkHttp's or
 * the scheduler's threads, so they must be quick and thread-safe. An exception thrown here is
 * handed to the thread's uncaught-exception handler and does not change the note's outcome.
 */
public interface TranscriptionListener {

  /** A listener that ignores every event. */
  TranscriptionListener NONE = new TranscriptionListener() {};

  /**
   * An attempt starts: a file or stream note is read and checked against its hash, then uploaded.
   * An attempt whose audio turns out unreadable or changed ends the note without an upload.
   */
  default void attemptStarted(Attempt attempt) {}

  /**
   * {@code bytesSent} of the note's {@code bytesTotal} audio bytes have been handed to the network
   * in this attempt. Called as the upload proceeds and once at its end.
   */
  default void uploadProgress(Attempt attempt, long bytesSent, long bytesTotal) {}

  /**
   * A resumable upload lost its link and goes on within {@code attempt} from {@code offset}, the
   * bytes the gateway already holds, instead of starting over; {@link #uploadProgress} continues
   * from there.
   */
  default void uploadResumed(Attempt attempt, long offset, long bytesTotal) {}

  /**
   * The gateway answered that the note's work still runs and how far it got: {@code secondsDone} of
   * the note's {@code secondsTotal} seconds of audio are transcribed. Told after each such answer
   * while {@code attempt} waits for the transcript (the gateway holds each question for a while, so
   * about every 20 to 60 s), only when the gateway reports both numbers; the attempt goes on
   * waiting, it has not failed.
   */
  default void transcriptionProgress(Attempt attempt, double secondsDone, double secondsTotal) {}

  /**
   * {@code failed} ended with a transient failure and the note will be sent again after {@code
   * pause}, unless it is cancelled first.
   */
  default void resendScheduled(Attempt failed, Duration pause, Failure reason) {}

  /**
   * The note ended: transcribed, refused, given up, cancelled, or its audio could not be used.
   * Called exactly once per note, after every other event of that note.
   */
  default void ended(String noteKey, Outcome outcome) {}
}
