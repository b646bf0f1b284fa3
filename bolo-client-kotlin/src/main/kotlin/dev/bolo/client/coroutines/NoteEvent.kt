package dev.bolo.client.coroutines

import dev.bolo.client.Attempt
import dev.bolo.client.Failure
import dev.bolo.client.Outcome
import kotlin.time.Duration
import kotlin.time.toKotlinDuration
import java.time.Duration as JavaDuration

/**
 * One event of a note, as [SuspendingBoloClient.events] emits them: the same events a
 * `TranscriptionListener` hears, each naming its note by [noteKey] (its `Idempotency-Key`).
 */
public sealed interface NoteEvent {

  /** The note's `Idempotency-Key`, the same for every event of one note. */
  public val noteKey: String

  /** An attempt starts: its audio was checked against the note's hash and is being uploaded. */
  public data class AttemptStarted(val attempt: Attempt) : NoteEvent {
    override val noteKey: String
      get() = attempt.idempotencyKey()
  }

  /** [bytesSent] of the note's [bytesTotal] bytes were handed to the network in [attempt]. */
  public data class UploadProgress(val attempt: Attempt, val bytesSent: Long, val bytesTotal: Long) :
    NoteEvent {
    override val noteKey: String
      get() = attempt.idempotencyKey()
  }

  /**
   * A resumable upload lost its link and goes on within [attempt] from [offset], the bytes the
   * gateway already holds, instead of starting over.
   */
  public data class UploadResumed(val attempt: Attempt, val offset: Long, val bytesTotal: Long) :
    NoteEvent {
    override val noteKey: String
      get() = attempt.idempotencyKey()
  }

  /**
   * The gateway is still transcribing [attempt]'s note and has recognised [secondsDone] of its
   * [secondsTotal] seconds; the attempt goes on waiting, it has not failed.
   */
  public data class TranscriptionProgress(
    val attempt: Attempt,
    val secondsDone: Double,
    val secondsTotal: Double,
  ) : NoteEvent {
    override val noteKey: String
      get() = attempt.idempotencyKey()
  }

  /** [failed] ended with a transient [reason]; the note is sent again after [pause]. */
  public data class ResendScheduled(val failed: Attempt, val pause: Duration, val reason: Failure) :
    NoteEvent {
    internal constructor(
      failed: Attempt,
      pause: JavaDuration,
      reason: Failure,
    ) : this(failed, pause.toKotlinDuration(), reason)

    override val noteKey: String
      get() = failed.idempotencyKey()
  }

  /** The note ended with [outcome]; always the last event. */
  public data class Ended(override val noteKey: String, val outcome: Outcome) : NoteEvent
}
