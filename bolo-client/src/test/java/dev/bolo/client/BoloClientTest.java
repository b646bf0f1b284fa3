package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The client against a real HTTP server on loopback, with the policy on a fake clock. */
class BoloClientTest {

  private static final String OK_BODY =
      "{\"text\":\"buy milk\",\"deduplicated\":true,\"audio_sha256\":\"ab12\",\"duration_ms\":1500,"
          + "\"request_id\":\"r-1\",\"engine\":\"offline\"}";
  private static final Transcript OK =
      new Transcript("buy milk", true, "ab12", 1500L, "r-1", "offline");

  @StartStop private final MockWebServer server = new MockWebServer();

  private final FakeTime time = new FakeTime();
  private final FakeScheduler sleeper = new FakeScheduler(time);
  private final RecordingListener listener = new RecordingListener();
  private final VoiceNote note =
      VoiceNote.ofBytes(NoteLengthTest.wav(48000, 48000, false), "note.wav");

  private BoloClient client() {
    return client(builder -> builder);
  }

  private BoloClient client(UnaryOperator<BoloClient.Builder> customize) {
    BoloClient.Builder builder =
        BoloClient.builder()
            .baseUrl(server.url("/bolo/"))
            .token("device-token")
            .policy(ResendPolicy.standard().withoutJitter())
            .timing(sleeper.timing())
            .listener(listener)
            // These tests count and script whole uploads; LookupBeforeResendTest covers lookups
            // and ResumableUploadTest resumable uploads.
            .lookupBeforeResend(false)
            .resumableUploads(false);
    return customize.apply(builder).build();
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
        .body(
            "{\"error\":\"refused "
                + status
                + "\",\"code\":\""
                + code
                + "\",\"request_id\":\"r-9\"}")
        .build();
  }

  @Test
  void everyAttemptCarriesTheNotesHeadersOneKeyAndAFreshRequestId() throws Exception {
    server.enqueue(error(503, "upstream_unavailable"));
    server.enqueue(ok());

    Outcome outcome =
        client()
            .transcribe(
                note,
                TranscriptionOptions.defaults()
                    .withLanguage("en")
                    .withModel("m1")
                    .withPrompt("groceries"));

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    RecordedRequest first = take();
    RecordedRequest second = take();
    for (RecordedRequest request : List.of(first, second)) {
      assertThat(request.getUrl().encodedPath()).isEqualTo("/bolo/v1/transcriptions");
      assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer device-token");
      assertThat(request.getHeaders().get("X-Bolo-Audio-Sha256")).isEqualTo(note.sha256());
      assertThat(request.getHeaders().get("X-Bolo-Audio-Duration-Ms")).isEqualTo("1500");
      assertThat(request.getHeaders().get("Content-Type")).startsWith("multipart/form-data");
      String body = Objects.requireNonNull(request.getBody()).string(StandardCharsets.ISO_8859_1);
      assertThat(body)
          .contains("name=\"audio\"; filename=\"note.wav\"", "Content-Type: audio/wav")
          .contains("name=\"language\"\r\n\r\nen\r\n")
          .contains("name=\"model\"\r\n\r\nm1\r\n")
          .contains("name=\"prompt\"\r\n\r\ngroceries\r\n");
    }
    assertThat(first.getHeaders().get("Idempotency-Key"))
        .isEqualTo(second.getHeaders().get("Idempotency-Key"))
        .matches("\"[0-9a-f-]{36}\"");
    assertThat(first.getHeaders().get("X-Bolo-Request-Id")).endsWith("-a1");
    assertThat(second.getHeaders().get("X-Bolo-Request-Id")).endsWith("-a2");
  }

  @Test
  void optionsLeftOutAreNotSent() throws Exception {
    server.enqueue(ok());

    client()
        .transcribe(
            VoiceNote.ofBytes(new byte[] {1, 2, 3}, "note.ogg"), TranscriptionOptions.defaults());

    RecordedRequest request = take();
    assertThat(request.getHeaders().get("X-Bolo-Audio-Duration-Ms")).isNull();
    assertThat(Objects.requireNonNull(request.getBody()).string(StandardCharsets.ISO_8859_1))
        .contains("name=\"audio\"")
        .doesNotContain("name=\"language\"", "name=\"model\"", "name=\"prompt\"");
  }

  @ParameterizedTest
  @ValueSource(ints = {500, 502, 503, 504, 520, 521, 522, 523, 524})
  void transientStatusIsResent(int status) {
    server.enqueue(
        new MockResponse.Builder().code(status).body("<html>proxy error</html>").build());
    server.enqueue(ok());

    assertThat(client().transcribe(note, TranscriptionOptions.defaults()))
        .isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @ParameterizedTest
  @ValueSource(ints = {400, 401, 402, 409, 413, 415, 422, 429, 501})
  void permanentStatusIsRefusedWithoutAResend(int status) {
    server.enqueue(error(status, "code_" + status));
    server.enqueue(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome)
        .isEqualTo(
            new Outcome.Refused(
                new Failure.Http(status, "code_" + status, "refused " + status, "r-9", null), 1));
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(sleeper.pauses()).isEmpty();
  }

  @Test
  void serviceUnavailableWithRetryAfterSecondsThenSuccessWaitsTheLongerWait() {
    server.enqueue(
        new MockResponse.Builder().code(503).addHeader("Retry-After", "4").body("{}").build());
    server.enqueue(ok());

    assertThat(client().transcribe(note, TranscriptionOptions.defaults()))
        .isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(sleeper.pauses()).containsExactly(Duration.ofSeconds(4));
    assertThat(listener.events).contains("resend 1 after PT4S: HTTP 503");
  }

  @Test
  void rateLimitedWithRetryAfterDateIsResentAtThatDate() {
    String date =
        DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .format(FakeTime.START.plusSeconds(6).atOffset(ZoneOffset.UTC));
    server.enqueue(error(429, "rate_limited").newBuilder().addHeader("Retry-After", date).build());
    server.enqueue(ok());

    assertThat(client().transcribe(note, TranscriptionOptions.defaults()))
        .isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(sleeper.pauses()).containsExactly(Duration.ofSeconds(6));
  }

  @Test
  void retryAfterBeyondTheWindowGivesUpWithoutWaiting() {
    server.enqueue(
        error(503, "upstream_unavailable").newBuilder().addHeader("Retry-After", "120").build());
    server.enqueue(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(sleeper.pauses()).isEmpty();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void successThatIsNotATranscriptIsRefusedNotResent() {
    server.enqueue(new MockResponse.Builder().body("<html>captive portal</html>").build());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Refused.class);
    assertThat(((Outcome.Refused) outcome).code()).isEqualTo("invalid_response");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void disconnectDuringTheRequestBodyIsResent() throws Exception {
    VoiceNote large = VoiceNote.ofBytes(new byte[4 * 1024 * 1024], "large.wav");
    MockResponse disconnect =
        new MockResponse.Builder()
            .onRequestBody(new SocketEffect.CloseSocket(true, false, false))
            .build();
    // The server chooses a request-body effect by peeking before it reads a request, and a failed
    // request leaves its response queued: switch to success once the failed request is recorded,
    // which the pause waits for, so the resend cannot race it.
    AtomicReference<@Nullable RecordedRequest> failed = new AtomicReference<>();
    sleeper.duringPause(index -> failed.compareAndSet(null, take()));
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse peek() {
            return failed.get() == null ? disconnect : ok();
          }

          @Override
          public MockResponse dispatch(RecordedRequest request) {
            return ok();
          }
        });

    Outcome outcome = client().transcribe(large, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(listener.events.get(1)).startsWith("resend 1 after PT2S: connection");
    RecordedRequest cutOff = Objects.requireNonNull(failed.get());
    assertThat(cutOff.getFailure()).isNotNull();
    assertThat(cutOff.getBodySize()).isLessThan(4 * 1024 * 1024);
    assertThat(take().getBodySize()).isGreaterThan(4 * 1024 * 1024);
  }

  @Test
  void stalledResponseTimesOutAndIsResent() {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    server.enqueue(ok());
    UploadTimeouts quick = new UploadTimeouts(ms(300), ms(300), ms(300));

    Outcome outcome =
        client(b -> b.uploadTimeouts(quick)).transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(listener.events.get(1)).startsWith("resend 1 after PT2S: timeout");
  }

  @Test
  void throttledSlowBodyIsReadToTheEndWithoutAResend() {
    String padded =
        OK_BODY.replace("\"engine\"", "\"padding\":\"" + "x".repeat(3000) + "\",\"engine\"");
    // About 1.3 s in all, longer than the timeout, but bytes every 100 ms, a tenth of it: slow
    // is not stalled, however late a busy machine runs the throttle.
    server.enqueue(
        new MockResponse.Builder()
            .body(padded)
            .throttleBody(256, 100, TimeUnit.MILLISECONDS)
            .build());
    UploadTimeouts quick = new UploadTimeouts(ms(1000), ms(1000), ms(1000));
    // The throttle also slows the server's reading of the request: keep the upload tiny.
    VoiceNote tiny = VoiceNote.ofBytes(new byte[] {1, 2, 3}, "tiny.ogg");

    Outcome outcome =
        client(b -> b.uploadTimeouts(quick)).transcribe(tiny, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
  }

  @Test
  void unknownHostIsResent() {
    AtomicInteger lookups = new AtomicInteger();
    OkHttpClient flakyDns =
        new OkHttpClient.Builder()
            .dns(
                host -> {
                  if (lookups.incrementAndGet() == 1) {
                    throw new UnknownHostException(host + ": no network yet");
                  }
                  return List.of(InetAddress.getLoopbackAddress());
                })
            .build();
    server.enqueue(ok());

    Outcome outcome =
        client(
                b ->
                    b.okHttpClient(flakyDns)
                        .baseUrl(server.url("/").newBuilder().host("bolo.test").build()))
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(listener.events.get(1)).startsWith("resend 1 after PT2S: unknown host");
  }

  @Test
  void refusedConnectionsAreResentFourTimesThenGivenUp() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }

    Outcome outcome =
        client(b -> b.baseUrl("http://127.0.0.1:" + closedPort + "/"))
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(outcome.attempts()).isEqualTo(4);
    assertThat(((Outcome.GaveUp) outcome).lastFailure())
        .isInstanceOfSatisfying(
            Failure.Network.class,
            n -> assertThat(n.kind()).isEqualTo(Failure.NetworkKind.CONNECTION));
    assertThat(sleeper.pauses())
        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
  }

  @Test
  void anInterruptedThreadStartsNoAttemptAndStaysInterrupted() {
    server.enqueue(ok());
    Thread.currentThread().interrupt();

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());
    boolean interrupted = Thread.interrupted();

    assertThat(outcome).isEqualTo(new Outcome.Cancelled(0));
    assertThat(interrupted).isTrue();
    assertThat(server.getRequestCount()).isZero();
    assertThat(listener.events).containsExactly("cancelled 0");
  }

  @Test
  void cancelDuringACallAbortsItAndStartsNoOther() throws Exception {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    server.enqueue(ok());
    TranscriptionHandle handle = client().transcribeAsync(note, TranscriptionOptions.defaults());
    assertThat(server.takeRequest(5, TimeUnit.SECONDS)).isNotNull();

    handle.cancel();

    // Without the cancel the call would wait for its 30 s read timeout.
    assertThat(handle.await(Duration.ofSeconds(5))).isEqualTo(new Outcome.Cancelled(1));
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(handle.isCancelled()).isTrue();
  }

  @Test
  void cancelDuringARealPauseEndsItAtOnce() throws Exception {
    CountDownLatch pausing = new CountDownLatch(1);
    TranscriptionListener onPause =
        new TranscriptionListener() {
          @Override
          public void resendScheduled(Attempt failed, Duration delay, Failure reason) {
            pausing.countDown();
          }
        };
    server.enqueue(
        error(503, "upstream_unavailable").newBuilder().addHeader("Retry-After", "80").build());
    server.enqueue(ok());
    TranscriptionHandle handle =
        client(b -> b.timing(Timing.system()).listener(onPause))
            .transcribeAsync(note, TranscriptionOptions.defaults());
    assertThat(pausing.await(5, TimeUnit.SECONDS)).isTrue();

    handle.cancel();

    assertThat(handle.await(Duration.ofSeconds(5))).isEqualTo(new Outcome.Cancelled(1));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void interruptingASynchronousCallerDuringAPauseCancelsAndKeepsTheFlag() throws Exception {
    CountDownLatch pausing = new CountDownLatch(1);
    TranscriptionListener onPause =
        new TranscriptionListener() {
          @Override
          public void resendScheduled(Attempt failed, Duration delay, Failure reason) {
            pausing.countDown();
          }
        };
    server.enqueue(
        error(503, "upstream_unavailable").newBuilder().addHeader("Retry-After", "80").build());
    server.enqueue(ok());
    BoloClient client = client(b -> b.timing(Timing.system()).listener(onPause));
    CompletableFuture<String> result = new CompletableFuture<>();
    Thread caller =
        new Thread(
            () -> {
              Outcome outcome = client.transcribe(note, TranscriptionOptions.defaults());
              result.complete(outcome + " interrupted=" + Thread.currentThread().isInterrupted());
            });
    caller.start();
    assertThat(pausing.await(5, TimeUnit.SECONDS)).isTrue();

    caller.interrupt();

    assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("Cancelled[attempts=1] interrupted=true");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theSharedOkHttpClientIsLeftAsItWas() {
    OkHttpClient shared = new OkHttpClient();

    client(b -> b.okHttpClient(shared));

    assertThat(shared.retryOnConnectionFailure()).isTrue();
    assertThat(shared.interceptors()).isEmpty();
  }

  @Test
  void invalidSettingsFailBeforeAnyUpload() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> BoloClient.builder().token("two words"))
        .withMessage("token must be visible ASCII without spaces");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> TranscriptionOptions.defaults().withLanguage(" "))
        .withMessage("language must not be blank: ' '");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> BoloClient.builder().baseUrl("ftp://example"))
        .withMessage("baseUrl must be an http or https URL: ftp://example");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CallOptions.defaults().withAttemptTimeout(Duration.ZERO))
        .withMessage("attemptTimeout must be positive: PT0S");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CallOptions.defaults().withIdempotencyKey("a \"quoted\" key"))
        .withMessageStartingWith("idempotencyKey must be 1 to 200 printable ASCII characters");
    assertThat(server.getRequestCount()).isZero();
  }

  private RecordedRequest take() throws InterruptedException {
    return Objects.requireNonNull(server.takeRequest(5, TimeUnit.SECONDS), "no request in 5 s");
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
