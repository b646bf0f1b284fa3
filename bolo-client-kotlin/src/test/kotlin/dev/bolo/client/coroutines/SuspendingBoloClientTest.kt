package dev.bolo.client.coroutines

import dev.bolo.client.Attempt
import dev.bolo.client.BoloClient
import dev.bolo.client.CallOptions
import dev.bolo.client.JobOutcome
import dev.bolo.client.Outcome
import dev.bolo.client.ResendPolicy
import dev.bolo.client.Scheduler
import dev.bolo.client.Timing
import dev.bolo.client.TranscriptionListener
import dev.bolo.client.VoiceNote
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.Random
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.seconds
import kotlin.time.toKotlinDuration
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.currentTime
import kotlinx.coroutines.test.runTest
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import mockwebserver3.SocketEffect
import mockwebserver3.junit5.StartStop
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * The coroutine API against a real HTTP server on loopback, with the SDK's pauses on the test's
 * virtual time, as an Android app's tests run it: a 2 s pause takes no real time, and cancelling
 * the coroutine cancels the note.
 */
class SuspendingBoloClientTest {

  @StartStop private val server = MockWebServer()

  private val note = VoiceNote.ofBytes(wav(millis = 1500), "note.wav")

  /**
   * A client whose pauses are `delay`s in [scope] and whose elapsed time is its virtual time. It
   * does not ask for the transcript before a resend: these tests script and count the uploads.
   */
  private fun TestScope.client(): SuspendingBoloClient =
    BoloClient.builder()
      .baseUrl(server.url("/"))
      .token("device-token")
      .lookupBeforeResend(false)
      .policy(ResendPolicy.standard().withoutJitter())
      .timing(virtualTiming(this, backgroundScope))
      .build()
      .suspending()

  @Test
  fun aSuspendingCallResendsAfterThePolicysPausesOnVirtualTime() = runTest {
    server.enqueue(status(503))
    server.enqueue(status(502))
    server.enqueue(ok())

    val outcome = client().transcribe(note)

    assertThat(outcome).isInstanceOf(Outcome.Transcribed::class.java)
    assertThat(outcome.attempts()).isEqualTo(3)
    assertThat(currentTime).isEqualTo(7_000) // 2 s + 5 s, and no real second passed waiting.
    assertThat(server.requestCount).isEqualTo(3)
  }

  @Test
  fun aJobIsSubmittedResentWithItsKeyAndReadOnVirtualTime() = runTest {
    server.enqueue(status(503))
    server.enqueue(
      MockResponse.Builder()
        .code(202)
        .addHeader("Content-Type", "application/json")
        .body(
          "{\"id\":\"job_1\",\"status\":\"queued\",\"created_at\":\"2026-12-01T10:00:00Z\"," +
            "\"audio_sha256\":\"ab12\",\"duration_ms\":1500,\"metadata\":{}}"
        )
        .build()
    )

    val outcome = client().submitJob(note)

    assertThat(outcome).isInstanceOf(JobOutcome.Answered::class.java)
    assertThat(outcome.answerOrNull()?.id()).isEqualTo("job_1")
    assertThat(outcome.attempts()).isEqualTo(2)
    assertThat(currentTime).isEqualTo(2_000) // The policy's first pause, on virtual time.
    val first = server.takeRequest()
    val second = server.takeRequest()
    assertThat(first.url.encodedPath).isEqualTo("/v1/jobs")
    assertThat(second.headers["Idempotency-Key"]).isEqualTo(first.headers["Idempotency-Key"])
  }

  @Test
  fun cancellingTheCoroutineDuringAPauseCancelsTheNote() = runTest {
    server.enqueue(status(503).newBuilder().addHeader("Retry-After", "80").build())
    server.enqueue(ok())
    val paused = CompletableDeferred<Unit>()
    val ended = CompletableDeferred<Outcome>()
    val call = CallOptions.defaults().withListener(signals(paused, ended))
    val bolo = client()

    val job = launch { bolo.transcribe(note, call = call) }
    paused.await()
    job.cancel()
    job.join()

    assertThat(ended.await()).isEqualTo(Outcome.Cancelled(1))
    assertThat(job.isCancelled).isTrue()
    assertThat(currentTime).isLessThan(80_000)
    assertThat(server.requestCount).isEqualTo(1)
  }

  @Test
  fun cancellingTheCoroutineAbortsTheCallInFlight() = runTest {
    server.enqueue(MockResponse.Builder().onResponseStart(SocketEffect.Stall).build())
    server.enqueue(ok())
    val ended = CompletableDeferred<Outcome>()
    val call = CallOptions.defaults().withListener(signals(CompletableDeferred(), ended))
    val bolo = client()

    val job = launch(start = CoroutineStart.UNDISPATCHED) { bolo.transcribe(note, call = call) }
    realWait { server.takeRequest(5, TimeUnit.SECONDS) }
    job.cancel()

    // Without the cancel the call would wait for its 30 s read timeout.
    assertThat(realWait { ended.await() }).isEqualTo(Outcome.Cancelled(1))
    assertThat(server.requestCount).isEqualTo(1)
  }

  @Test
  fun theFlowTellsEveryEventOfOneNoteEndingWithItsOutcome() = runTest {
    server.enqueue(status(503))
    server.enqueue(ok())

    val events = client().events(note).toList()

    assertThat(events.map { it.noteKey }.distinct()).hasSize(1)
    assertThat(events.filterNot { it is NoteEvent.UploadProgress }.map { it::class.simpleName })
      .containsExactly("AttemptStarted", "ResendScheduled", "AttemptStarted", "Ended")
    assertThat(events.filterIsInstance<NoteEvent.ResendScheduled>().single().pause)
      .isEqualTo(2.seconds)
    assertThat(events.filterIsInstance<NoteEvent.UploadProgress>().last().bytesSent)
      .isEqualTo(note.size())
    assertThat((events.last() as NoteEvent.Ended).outcome.attempts()).isEqualTo(2)
    assertThat(currentTime).isEqualTo(2_000)
  }

  @Test
  fun theFlowTellsHowFarTheGatewayGotWhileItWaitsForRunningWork() = runTest {
    // The upload fails; the lookup before the resend finds the note still being transcribed.
    server.enqueue(status(503))
    server.enqueue(
      MockResponse.Builder()
        .code(202)
        .addHeader("Retry-After", "1")
        .addHeader("Content-Type", "application/json")
        .body("{\"status\":\"running\",\"seconds_done\":30,\"seconds_total\":600}")
        .build()
    )
    server.enqueue(ok())
    val client =
      BoloClient.builder()
        .baseUrl(server.url("/"))
        .token("device-token")
        .policy(ResendPolicy.standard().withoutJitter())
        .timing(virtualTiming(this, backgroundScope))
        .build()
        .suspending()

    val events = client.events(note).toList()

    val progress = events.filterIsInstance<NoteEvent.TranscriptionProgress>().single()
    assertThat(progress.secondsDone).isEqualTo(30.0)
    assertThat(progress.secondsTotal).isEqualTo(600.0)
    assertThat(progress.attempt.number()).isEqualTo(2)
    assertThat(events.filterNot { it is NoteEvent.UploadProgress }.map { it::class.simpleName })
      .containsExactly(
        "AttemptStarted",
        "ResendScheduled",
        "AttemptStarted",
        "TranscriptionProgress",
        "Ended",
      )
    assertThat((events.last() as NoteEvent.Ended).outcome).isInstanceOf(Outcome.Transcribed::class.java)
  }

  @Test
  fun aCollectorThatStopsEarlyCancelsTheNote() = runTest {
    server.enqueue(status(503).newBuilder().addHeader("Retry-After", "80").build())
    server.enqueue(ok())
    val ended = CompletableDeferred<Outcome>()
    val call = CallOptions.defaults().withListener(signals(CompletableDeferred(), ended))

    val resend = client().events(note, call = call).first { it is NoteEvent.ResendScheduled }

    assertThat((resend as NoteEvent.ResendScheduled).pause).isEqualTo(80.seconds)
    assertThat(ended.await()).isEqualTo(Outcome.Cancelled(1))
    assertThat(currentTime).isLessThan(80_000)
    assertThat(server.requestCount).isEqualTo(1)
  }

  private companion object {
    const val OK_BODY =
      """{"text":"buy milk","deduplicated":false,"audio_sha256":"ab","request_id":"r","engine":"offline"}"""

    fun ok(): MockResponse = MockResponse.Builder().body(OK_BODY).build()

    fun status(code: Int): MockResponse = MockResponse.Builder().code(code).body("{}").build()

    /**
     * The SDK's time on the test's virtual clock: a pause is a `delay` in [scope], and elapsed time
     * is the test scheduler's.
     */
    fun virtualTiming(test: TestScope, scope: CoroutineScope): Timing =
      Timing.builder()
        .ticker { TimeUnit.MILLISECONDS.toNanos(test.testScheduler.currentTime) }
        .scheduler { pause, next ->
          val job =
            scope.launch {
              delay(pause.toKotlinDuration())
              next.run()
            }
          Scheduler.Pending { job.cancel() }
        }
        .random(Random(1))
        .build()

    /** Completes [resendScheduled] at the first pause and [ended] with the outcome. */
    fun signals(
      resendScheduled: CompletableDeferred<Unit>,
      ended: CompletableDeferred<Outcome>,
    ): TranscriptionListener =
      object : TranscriptionListener {
        override fun resendScheduled(
          failed: Attempt,
          pause: java.time.Duration,
          reason: dev.bolo.client.Failure,
        ) {
          resendScheduled.complete(Unit)
        }

        override fun ended(noteKey: String, outcome: Outcome) {
          ended.complete(outcome)
        }
      }

    /** Runs blocking work that waits for real I/O, off the test's single virtual-time thread. */
    suspend fun <T> realWait(block: suspend () -> T): T =
      kotlinx.coroutines.withContext(kotlinx.coroutines.Dispatchers.IO) { block() }

    /** A 16 kHz mono 16-bit WAV of [millis] of silence. */
    fun wav(millis: Int): ByteArray {
      val data = 32 * millis
      val buffer = ByteBuffer.allocate(44 + data).order(ByteOrder.LITTLE_ENDIAN)
      buffer.put("RIFF".toByteArray()).putInt(36 + data).put("WAVE".toByteArray())
      buffer.put("fmt ".toByteArray()).putInt(16).putShort(1).putShort(1)
      buffer.putInt(16_000).putInt(32_000).putShort(2).putShort(16)
      buffer.put("data".toByteArray()).putInt(data)
      return buffer.array()
    }
  }
}
