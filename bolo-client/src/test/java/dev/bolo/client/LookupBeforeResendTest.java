package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A resend asks {@code GET /v1/transcriptions/{sha256}} before uploading the note again, within the
 * resend policy: against a real HTTP server on loopback that counts the uploads and the bytes it
 * received, with the policy on a fake clock.
 */
class LookupBeforeResendTest {

  private static final String OK_BODY =
      "{\"text\":\"buy milk\",\"deduplicated\":true,\"audio_sha256\":\"ab12\",\"duration_ms\":1500,"
          + "\"request_id\":\"r-1\",\"engine\":\"offline\"}";
  private static final Transcript OK =
      new Transcript("buy milk", true, "ab12", 1500L, "r-1", "offline");

  @StartStop private final MockWebServer server = new MockWebServer();

  private final FakeTime time = new FakeTime();
  private final FakeScheduler scheduler = new FakeScheduler(time);
  private final RecordingListener listener = new RecordingListener();
  private final VoiceNote note =
      VoiceNote.ofBytes(NoteLengthTest.wav(48000, 48000, false), "note.wav");

  /** The answers to uploads and to lookups, each in order; what the server received, in order. */
  private final Deque<MockResponse> uploads = new ArrayDeque<>();

  private final Deque<MockResponse> lookups = new ArrayDeque<>();
  private final List<RecordedRequest> received = new CopyOnWriteArrayList<>();

  @BeforeEach
  void script() {
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            received.add(request);
            Deque<MockResponse> answers = "GET".equals(request.getMethod()) ? lookups : uploads;
            synchronized (answers) {
              MockResponse next = answers.pollFirst();
              return next != null ? next : error(599, "unscripted");
            }
          }
        });
  }

  private BoloClient client() {
    return BoloClient.builder()
        .baseUrl(server.url("/bolo/"))
        .token("device-token")
        .policy(ResendPolicy.standard().withoutJitter())
        .timing(scheduler.timing())
        .listener(listener)
        .build();
  }

  @Test
  void aLostAnswerIsRecoveredByALookupWithoutASecondUpload() {
    // The gateway reads the whole note, then the link drops before the answer.
    uploads.add(
        new MockResponse.Builder()
            .onResponseStart(new SocketEffect.CloseSocket(true, false, false))
            .build());
    lookups.add(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults().withLanguage("en"));

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(methods()).containsExactly("POST", "GET");
    RecordedRequest upload = received.get(0);
    assertThat(upload.getBodySize()).as("the one upload was whole").isGreaterThan(note.size());
    assertThat(received.stream().mapToLong(RecordedRequest::getBodySize).sum())
        .as("bytes the server received: one note, nothing more")
        .isEqualTo(upload.getBodySize());
    RecordedRequest lookup = received.get(1);
    assertThat(lookup.getUrl().encodedPath()).isEqualTo("/bolo/v1/transcriptions/" + note.sha256());
    assertThat(lookup.getUrl().queryParameter("language")).isEqualTo("en");
    assertThat(lookup.getUrl().queryParameter("wait")).isEqualTo("20");
    assertThat(lookup.getHeaders().get("Authorization")).isEqualTo("Bearer device-token");
    assertThat(lookup.getHeaders().get("X-Bolo-Request-Id")).endsWith("-a2");
    assertThat(listener.events).startsWith("start 1").contains("start 2").doesNotContain("start 3");
  }

  @Test
  void aLookupThatFindsNothingLeadsToTheUploadInTheSameAttempt() {
    uploads.add(error(503, "upstream_unavailable"));
    lookups.add(error(404, "not_found"));
    uploads.add(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(methods()).containsExactly("POST", "GET", "POST");
    assertThat(received.get(2).getHeaders().get("X-Bolo-Request-Id"))
        .isEqualTo(received.get(1).getHeaders().get("X-Bolo-Request-Id"))
        .endsWith("-a2");
    assertThat(scheduler.pauses()).containsExactly(Duration.ofSeconds(2));
  }

  @Test
  void aGatewayWithoutLookupsStillGetsTheNoteUploaded() {
    uploads.add(error(503, "upstream_unavailable"));
    lookups.add(error(405, "method_not_allowed"));
    uploads.add(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(methods()).containsExactly("POST", "GET", "POST");
  }

  @Test
  void lookupsNeverAddAttemptsBeyondThePolicy() {
    for (int i = 0; i < 4; i++) {
      uploads.add(error(503, "upstream_unavailable"));
      lookups.add(error(404, "not_found"));
    }

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(((Outcome.GaveUp) outcome).attempts()).isEqualTo(4);
    assertThat(methods()).containsExactly("POST", "GET", "POST", "GET", "POST", "GET", "POST");
    assertThat(scheduler.pauses())
        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
  }

  @Test
  void workStillRunningIsAskedForAgainAfterThePolicysPause() {
    uploads.add(
        new MockResponse.Builder()
            .onResponseStart(new SocketEffect.CloseSocket(true, false, false))
            .build());
    lookups.add(running());
    lookups.add(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 3));
    assertThat(methods()).containsExactly("POST", "GET", "GET");
    assertThat(scheduler.pauses()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5));
    assertThat(listener.events)
        .anyMatch(e -> e.startsWith("resend 2 after PT5S: HTTP 202 running"));
  }

  @Test
  void workThatNeverFinishesEndsWithinThePolicyAfterOneUpload() {
    uploads.add(error(504, "upstream_timeout"));
    for (int i = 0; i < 5; i++) {
      lookups.add(running());
    }

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    Outcome.GaveUp gaveUp = (Outcome.GaveUp) outcome;
    assertThat(gaveUp.attempts()).isEqualTo(4);
    assertThat(gaveUp.lastFailure().reason()).isEqualTo("HTTP 202 running");
    assertThat(methods()).containsExactly("POST", "GET", "GET", "GET");
  }

  @Test
  void aNoteCancelledDuringAPauseIsNeitherLookedUpNorUploaded() throws Exception {
    uploads.add(error(503, "upstream_unavailable"));
    AtomicReference<TranscriptionHandle> started = new AtomicReference<>();
    CountDownLatch handed = new CountDownLatch(1);
    scheduler.duringPause(
        index -> {
          handed.await();
          started.get().cancel();
        });
    scheduler.cancelledWhen(() -> started.get().isCancelled());

    started.set(
        client().transcribeAsync(note, TranscriptionOptions.defaults(), CallOptions.defaults()));
    handed.countDown();
    Outcome outcome = started.get().outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(Outcome.Cancelled.class);
    assertThat(methods()).containsExactly("POST");
  }

  @Test
  void aNoteCancelledDuringItsLookupIsNotUploaded() throws Exception {
    uploads.add(error(503, "upstream_unavailable"));
    lookups.add(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    CountDownLatch lookupArrived = new CountDownLatch(1);
    Dispatcher scripted = server.getDispatcher();
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            MockResponse answer = scripted.dispatch(request);
            if ("GET".equals(request.getMethod())) {
              lookupArrived.countDown();
            }
            return answer;
          }
        });

    TranscriptionHandle handle =
        client().transcribeAsync(note, TranscriptionOptions.defaults(), CallOptions.defaults());
    assertThat(lookupArrived.await(10, TimeUnit.SECONDS)).isTrue();
    handle.cancel();
    Outcome outcome = handle.outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(Outcome.Cancelled.class);
    assertThat(methods()).containsExactly("POST", "GET");
  }

  @Test
  void turnedOffEveryResendUploadsTheWholeNote() {
    uploads.add(error(503, "upstream_unavailable"));
    uploads.add(ok());

    Outcome outcome =
        BoloClient.builder()
            .baseUrl(server.url("/bolo/"))
            .token("device-token")
            .policy(ResendPolicy.standard().withoutJitter())
            .timing(scheduler.timing())
            .lookupBeforeResend(false)
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(methods()).containsExactly("POST", "POST");
  }

  private List<String> methods() {
    return received.stream().map(RecordedRequest::getMethod).toList();
  }

  private static MockResponse ok() {
    return new MockResponse.Builder()
        .addHeader("Content-Type", "application/json")
        .body(OK_BODY)
        .build();
  }

  private static MockResponse running() {
    return new MockResponse.Builder()
        .code(202)
        .addHeader("Retry-After", "1")
        .addHeader("Content-Type", "application/json")
        .body("{\"status\":\"running\"}")
        .build();
  }

  private static MockResponse error(int status, String code) {
    return new MockResponse.Builder()
        .code(status)
        .addHeader("Content-Type", "application/json")
        .body("{\"error\":\"refused " + status + "\",\"code\":\"" + code + "\"}")
        .build();
  }
}
