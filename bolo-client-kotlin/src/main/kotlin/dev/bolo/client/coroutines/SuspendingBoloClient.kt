package dev.bolo.client.coroutines

import dev.bolo.client.Attempt
import dev.bolo.client.BoloClient
import dev.bolo.client.CallOptions
import dev.bolo.client.Failure
import dev.bolo.client.Job
import dev.bolo.client.JobList
import dev.bolo.client.JobOptions
import dev.bolo.client.JobOutcome
import dev.bolo.client.Outcome
import dev.bolo.client.TranscriptionListener
import dev.bolo.client.TranscriptionOptions
import dev.bolo.client.VoiceNote
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.buffer
import kotlinx.coroutines.flow.callbackFlow
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.suspendCancellableCoroutine
import java.time.Duration as JavaDuration

/**
 * The Bolo client for coroutines: [transcribe] suspends until the note ends, and [events] is a cold
 * [Flow] of one note's events. Cancelling the coroutine (or the flow's collector) cancels the note:
 * the call in flight is aborted, a pause ends, and no attempt starts after it.
 *
 * Nothing blocks a thread: the SDK runs each attempt as an OkHttp asynchronous call and waits out
 * pauses on a timer, so both are safe on `Dispatchers.Main`. The calls about jobs ([submitJob],
 * [job], [jobs], [cancelJob]) are the SDK's blocking ones, run on `Dispatchers.IO`; cancelling the
 * coroutine interrupts them, which cancels the call. Thread-safe, like the client it wraps.
 */
public class SuspendingBoloClient(public val client: BoloClient) {

  /**
   * Transcribes [note], resending as the client's policy (or [call]'s) allows, and returns how it
   * ended. Cancelling the calling coroutine cancels the note and throws `CancellationException`, as
   * any suspend function does; the note's listeners still hear [Outcome.Cancelled].
   */
  public suspend fun transcribe(
    note: VoiceNote,
    options: TranscriptionOptions = TranscriptionOptions.defaults(),
    call: CallOptions = CallOptions.defaults(),
  ): Outcome = suspendCancellableCoroutine { continuation ->
    val handle = client.transcribeAsync(note, options, call)
    continuation.invokeOnCancellation { handle.cancel() }
    handle.outcome().whenComplete { outcome, error ->
      if (error == null) {
        continuation.resume(outcome)
      } else {
        continuation.resumeWithException(error)
      }
    }
  }

  /**
   * The events of one transcription of [note], started when the flow is collected and ending with
   * [NoteEvent.Ended]. A collector that stops early (`first { … }`, cancellation) cancels the note.
   * Events are buffered without loss, so a slow collector never holds up the upload.
   */
  public fun events(
    note: VoiceNote,
    options: TranscriptionOptions = TranscriptionOptions.defaults(),
    call: CallOptions = CallOptions.defaults(),
  ): Flow<NoteEvent> =
    callbackFlow {
        // The call's own listener, if any, hears every event too.
        val own = call.listener()
        val listener =
          object : TranscriptionListener {
            override fun attemptStarted(attempt: Attempt) {
              own?.attemptStarted(attempt)
              trySend(NoteEvent.AttemptStarted(attempt))
            }

            override fun uploadProgress(attempt: Attempt, bytesSent: Long, bytesTotal: Long) {
              own?.uploadProgress(attempt, bytesSent, bytesTotal)
              trySend(NoteEvent.UploadProgress(attempt, bytesSent, bytesTotal))
            }

            override fun uploadResumed(attempt: Attempt, offset: Long, bytesTotal: Long) {
              own?.uploadResumed(attempt, offset, bytesTotal)
              trySend(NoteEvent.UploadResumed(attempt, offset, bytesTotal))
            }

            override fun transcriptionProgress(
              attempt: Attempt,
              secondsDone: Double,
              secondsTotal: Double,
            ) {
              own?.transcriptionProgress(attempt, secondsDone, secondsTotal)
              trySend(NoteEvent.TranscriptionProgress(attempt, secondsDone, secondsTotal))
            }

            override fun resendScheduled(failed: Attempt, pause: JavaDuration, reason: Failure) {
              own?.resendScheduled(failed, pause, reason)
              trySend(NoteEvent.ResendScheduled(failed, pause, reason))
            }

            override fun ended(noteKey: String, outcome: Outcome) {
              own?.ended(noteKey, outcome)
              trySend(NoteEvent.Ended(noteKey, outcome))
              channel.close()
            }
          }
        val handle = client.transcribeAsync(note, options, call.withListener(listener))
        // Ends when the note has ended (the channel closed) or the collector went away.
        awaitClose { handle.cancel() }
      }
      .buffer(Channel.UNLIMITED)

  /**
   * Hands [note] over as a job ([BoloClient.submitJob]) and returns once the gateway has stored it,
   * resent under the policy with one `Idempotency-Key`.
   */
  public suspend fun submitJob(
    note: VoiceNote,
    options: TranscriptionOptions = TranscriptionOptions.defaults(),
    job: JobOptions = JobOptions.none(),
    call: CallOptions = CallOptions.defaults(),
  ): JobOutcome<Job> = runInterruptible(Dispatchers.IO) { client.submitJob(note, options, job, call) }

  /** The device's job [id] ([BoloClient.job]). */
  public suspend fun job(id: String): JobOutcome<Job> =
    runInterruptible(Dispatchers.IO) { client.job(id) }

  /** A page of the device's jobs, newest first ([BoloClient.jobs]). */
  public suspend fun jobs(
    status: Job.Status? = null,
    after: String? = null,
  ): JobOutcome<JobList> = runInterruptible(Dispatchers.IO) { client.jobs(status, after) }

  /** Cancels the job [id] unless it has ended ([BoloClient.cancelJob]). */
  public suspend fun cancelJob(id: String): JobOutcome<Job> =
    runInterruptible(Dispatchers.IO) { client.cancelJob(id) }
}

/** This client for coroutines. */
public fun BoloClient.suspending(): SuspendingBoloClient = SuspendingBoloClient(this)
