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

  /** How long the gateway holds each lookup before it answers, on the fake clock. */
  private volatile Duration gatewayHolds = Duration.ZERO;

  @BeforeEach
  void script() {
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            received.add(request);
            if ("GET".equals(request.getMethod())) {
              time.advance(gatewayHolds);
            }
            Deque<MockResponse> answers = "GET".equals(request.getMethod()) ? lookups : uploads;
            synchronized (answers) {
              MockResponse next = answers.pollFirst();
              return next != null ? next : error(599, "unscripted");
            }
          }
        });
  }

  private BoloClient client() {
    return client(BoloClient.builder());
  }

  private BoloClient client(BoloClient.Builder builder) {
    return builder
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
  void workReportedRunningFiveTimesIsWaitedForWithinOneAttempt() {
    uploads.add(
        new MockResponse.Builder()
            .onResponseStart(new SocketEffect.CloseSocket(true, false, false))
            .build());
    for (int i = 1; i <= 5; i++) {
      lookups.add(RunningAnswer.at(100 * i, 600));
    }
    lookups.add(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(methods()).containsExactly("POST", "GET", "GET", "GET", "GET", "GET", "GET");
    assertThat(scheduler.pauses())
        .as("the policy's one pause, then the gateway's Retry-After between its answers")
        .containsExactly(
            Duration.ofSeconds(2),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1));
    assertThat(listener.events).containsOnlyOnce("start 2").doesNotContain("start 3");
    assertThat(listener.events).noneMatch(e -> e.startsWith("resend 2"));
  }

  @Test
  void theGatewaysProgressReachesTheListener() {
    uploads.add(error(503, "upstream_unavailable"));
    lookups.add(RunningAnswer.at(120, 600));
    lookups.add(RunningAnswer.withoutProgress());
    lookups.add(RunningAnswer.at(240.5, 600));
    lookups.add(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(listener.transcribing).containsExactly("2: 120.0/600.0", "2: 240.5/600.0");
  }

  @Test
  void theWaitEndsAtTheNotesDeadlineWithoutAResend() {
    // The gateway holds each lookup 20 s; the note (1.5 s) may wait 60 s + its length in all.
    gatewayHolds = Duration.ofSeconds(20);
    uploads.add(error(504, "upstream_timeout"));
    for (int i = 1; i <= 20; i++) {
      lookups.add(RunningAnswer.at(i, 600));
    }

    Outcome outcome =
        client(BoloClient.builder().runningWorkWait(Duration.ofSeconds(60), Duration.ofMinutes(15)))
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    Outcome.GaveUp gaveUp = (Outcome.GaveUp) outcome;
    assertThat(gaveUp.attempts()).isEqualTo(2);
    assertThat(gaveUp.lastFailure().reason()).isEqualTo("HTTP 202 running");
    assertThat(((Failure.Http) gaveUp.lastFailure()).message())
        .isEqualTo("the gateway was still transcribing this note after 62 s");
    // Answered after 20 s and 41 s of waiting (each pause 1 s), then 62 s: past 61.5 s.
    assertThat(methods()).containsExactly("POST", "GET", "GET", "GET");
    assertThat(listener.events).noneMatch(e -> e.startsWith("resend 2"));
  }

  @Test
  void aGatewayWhoseProgressStallsIsNotWaitedForUntilTheDeadline() {
    gatewayHolds = Duration.ofSeconds(20);
    uploads.add(error(504, "upstream_timeout"));
    for (int i = 1; i <= 20; i++) {
      lookups.add(RunningAnswer.at(60, 600));
    }

    Outcome outcome =
        client(
                BoloClient.builder()
                    .runningWorkWait(Duration.ofMinutes(10), Duration.ofMinutes(15))
                    .stalledWorkTimeout(Duration.ofSeconds(60)))
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(((Failure.Http) ((Outcome.GaveUp) outcome).lastFailure()).message())
        .isEqualTo("the gateway reported no progress on this note for 63 s");
    // 60 s done at the first answer; flat at the next three, the last 63 s after the first.
    assertThat(methods()).containsExactly("POST", "GET", "GET", "GET", "GET");
    assertThat(time.elapsed()).isLessThan(Duration.ofMinutes(10));
  }

  @Test
  void aCancelWhileTheGatewayWorksEndsTheWait() throws Exception {
    uploads.add(error(503, "upstream_unavailable"));
    lookups.add(RunningAnswer.at(100, 600));
    lookups.add(RunningAnswer.at(200, 600));
    lookups.add(ok());
    AtomicReference<TranscriptionHandle> started = new AtomicReference<>();
    CountDownLatch handed = new CountDownLatch(1);
    // Pause 0 is the policy's; 1 and 2 follow the gateway's two 202s.
    scheduler.duringPause(
        index -> {
          if (index == 2) {
            handed.await();
            started.get().cancel();
          }
        });
    scheduler.cancelledWhen(() -> started.get() != null && started.get().isCancelled());

    started.set(
        client().transcribeAsync(note, TranscriptionOptions.defaults(), CallOptions.defaults()));
    handed.countDown();
    Outcome outcome = started.get().outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome).isEqualTo(new Outcome.Cancelled(2));
    assertThat(methods()).containsExactly("POST", "GET", "GET");
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

  private static MockResponse error(int status, String code) {
    return new MockResponse.Builder()
        .code(status)
        .addHeader("Content-Type", "application/json")
        .body("{\"error\":\"refused " + status + "\",\"code\":\"" + code + "\"}")
        .build();
  }
}
