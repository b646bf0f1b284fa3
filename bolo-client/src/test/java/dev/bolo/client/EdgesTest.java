package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of the SDK that hostile answers, a changing note and an app's own cancellations reach:
 * each ends as one documented outcome, and nothing is sent again that should not be.
 */
class EdgesTest {

  private static final String OK_BODY =
      "{\"text\":\"buy milk\",\"deduplicated\":false,\"audio_sha256\":\"ab12\","
          + "\"duration_ms\":1500,\"request_id\":\"r-1\",\"engine\":\"offline\"}";
  private static final String DEEP = "[".repeat(100_000);

  @StartStop private final MockWebServer server = new MockWebServer();
  @TempDir Path dir;

  private final FakeTime time = new FakeTime();
  private final FakeScheduler scheduler = new FakeScheduler(time);
  private final RecordingListener listener = new RecordingListener();
  private final byte[] wav = NoteLengthTest.wav(48000, 48000, false);
  private final List<OkHttpClient> httpClients = new ArrayList<>();

  @AfterEach
  void releaseHttpClients() {
    httpClients.forEach(http -> http.dispatcher().executorService().shutdownNow());
  }

  private BoloClient client(UnaryOperator<BoloClient.Builder> customize) {
    return customize
        .apply(
            BoloClient.builder()
                .baseUrl(server.url("/"))
                .token("device-token")
                .policy(ResendPolicy.standard().withoutJitter())
                .timing(scheduler.timing())
                .listener(listener)
                // These tests count and script whole uploads; LookupBeforeResendTest covers
                // lookups and ResumableUploadTest resumable uploads.
                .lookupBeforeResend(false)
                .resumableUploads(false))
        .build();
  }

  private BoloClient client() {
    return client(b -> b);
  }

  private OkHttpClient httpClient(OkHttpClient.Builder builder) {
    OkHttpClient http = builder.build();
    httpClients.add(http);
    return http;
  }

  private static MockResponse ok() {
    return new MockResponse.Builder().body(OK_BODY).build();
  }

  private static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).body("{}").build();
  }

  private static MockResponse stalled() {
    return new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build();
  }

  private VoiceNote bytesNote() {
    return VoiceNote.ofBytes(wav, "note.wav");
  }

  private RecordedRequest take() throws InterruptedException {
    return Objects.requireNonNull(server.takeRequest(5, TimeUnit.SECONDS), "no request in 5 s");
  }

  // A 200 or 503 whose body is 100,000 '['.

  @Test
  void aSuccessWhoseBodyNestsTooDeeplyIsAnInvalidResponseNotAnError() throws Exception {
    server.enqueue(new MockResponse.Builder().body(DEEP).build());
    server.enqueue(new MockResponse.Builder().body(DEEP).build());
    BoloClient bolo = client();

    Outcome sync = bolo.transcribe(bytesNote(), TranscriptionOptions.defaults());
    Outcome async =
        bolo.transcribeAsync(bytesNote(), TranscriptionOptions.defaults()).await(ofSeconds(5));

    for (Outcome outcome : List.of(sync, async)) {
      assertThat(outcome)
          .isInstanceOfSatisfying(
              Outcome.Refused.class,
              refused -> {
                assertThat(refused.status()).isEqualTo(200);
                assertThat(refused.code()).isEqualTo("invalid_response");
              });
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aServiceUnavailableWhoseBodyNestsTooDeeplyIsResentLikeAnyOther() {
    server.enqueue(new MockResponse.Builder().code(503).body(DEEP).build());
    server.enqueue(ok());

    Outcome outcome = client().transcribe(bytesNote(), TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(listener.events).contains("resend 1 after PT2S: HTTP 503");
  }

  @Test
  void aStatusBelowOneHundredIsAProtocolFailureNotAnException() {
    server.enqueue(new MockResponse.Builder().status("HTTP/1.1 099 Odd").body("{}").build());

    Outcome outcome = client().transcribe(bytesNote(), TranscriptionOptions.defaults());

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.GaveUp.class,
            gaveUp ->
                assertThat(gaveUp.lastFailure())
                    .isEqualTo(
                        new Failure.Network(
                            Failure.NetworkKind.PROTOCOL, "invalid HTTP status 99")));
  }

  @Test
  void aListenerThatThrowsDoesNotChangeTheOutcome() {
    server.enqueue(status(503));
    server.enqueue(ok());
    List<Throwable> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
    TranscriptionListener broken =
        new TranscriptionListener() {
          @Override
          public void attemptStarted(Attempt attempt) {
            throw new IllegalStateException("listener bug");
          }

          @Override
          public void ended(String noteKey, Outcome outcome) {
            throw new IllegalStateException("listener bug");
          }
        };
    // Events arrive on the caller's and OkHttp's threads: catch what reaches any of them.
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, e) -> reported.add(e));
    Outcome outcome;
    try {
      outcome =
          client(b -> b.listener(broken)).transcribe(bytesNote(), TranscriptionOptions.defaults());
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(reported).isNotEmpty().allMatch(e -> "listener bug".equals(e.getMessage()));
  }

  // A 503 with Retry-After: 0, which OkHttp would resend by itself.

  @Test
  void okHttpDoesNotResendA503WithRetryAfterZeroTheResendIsThePolicys() throws Exception {
    server.enqueue(status(503).newBuilder().addHeader("Retry-After", "0").build());
    server.enqueue(ok());

    Outcome outcome = client().transcribe(bytesNote(), TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(scheduler.pauses()).containsExactly(ofSeconds(2));
    assertThat(listener.events)
        .containsExactly("start 1", "resend 1 after PT2S: HTTP 503", "start 2", "transcribed 2");
    assertThat(take().getHeaders().get("X-Bolo-Request-Id")).endsWith("-a1");
    assertThat(take().getHeaders().get("X-Bolo-Request-Id")).endsWith("-a2");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void eightServiceUnavailablesWithRetryAfterZeroCostFourUploads() {
    for (int i = 0; i < 8; i++) {
      server.enqueue(status(503).newBuilder().addHeader("Retry-After", "0").build());
    }

    Outcome outcome = client().transcribe(bytesNote(), TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(outcome.attempts()).isEqualTo(4);
    assertThat(server.getRequestCount()).isEqualTo(4);
  }

  @Test
  void noFollowUpOfOkHttpsOwnSendsTheNoteAgainNotARedirectNorAnAuthenticator() {
    server.enqueue(
        new MockResponse.Builder()
            .code(307)
            .addHeader("Location", server.url("/elsewhere/v1/transcriptions"))
            .build());
    server.enqueue(
        new MockResponse.Builder().code(401).body("{\"code\":\"unauthorized\"}").build());
    server.enqueue(ok());
    OkHttpClient appHttp =
        httpClient(
            new OkHttpClient.Builder()
                .authenticator(
                    (route, response) ->
                        response
                            .request()
                            .newBuilder()
                            .header("Authorization", "Bearer x")
                            .build()));
    BoloClient bolo = client(b -> b.okHttpClient(appHttp));

    Outcome redirected = bolo.transcribe(bytesNote(), TranscriptionOptions.defaults());
    Outcome challenged = bolo.transcribe(bytesNote(), TranscriptionOptions.defaults());

    assertThat(redirected)
        .isInstanceOfSatisfying(Outcome.Refused.class, r -> assertThat(r.status()).isEqualTo(307));
    assertThat(challenged)
        .isInstanceOfSatisfying(Outcome.Refused.class, r -> assertThat(r.status()).isEqualTo(401));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  // The note's file deleted or rewritten during a pause; a stream that changes or fails.

  @Test
  void aNoteDeletedDuringThePauseIsUnreadableAndNotResent() throws Exception {
    Path file = dir.resolve("note.wav");
    Files.write(file, wav);
    VoiceNote note = VoiceNote.ofFile(file);
    server.enqueue(status(503));
    server.enqueue(ok());
    scheduler.duringPause(index -> deleteQuietly(file));

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Unreadable.class,
            u -> assertThat(u.message()).startsWith(NoSuchFileException.class.getSimpleName()));
    assertThat(scheduler.pauses()).containsExactly(ofSeconds(2));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aNoteRewrittenDuringThePauseIsRefusedBeforeItIsSentWithBothHashes() throws Exception {
    Path file = dir.resolve("note.wav");
    Files.write(file, wav);
    VoiceNote note = VoiceNote.ofFile(file);
    byte[] other = NoteLengthTest.wav(32000, 32000, false);
    server.enqueue(status(503));
    server.enqueue(ok());
    scheduler.duringPause(index -> writeQuietly(file, other));

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    String now = VoiceNote.ofBytes(other, "x.wav").sha256();
    assertThat(outcome).isEqualTo(new Outcome.AudioChanged(note.sha256(), now, 2));
    assertThat(((Outcome.AudioChanged) outcome).message())
        .contains("the audio changed after the note was made", note.sha256(), now);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(listener.events).last().isEqualTo("changed 2");
  }

  @Test
  void aStreamNoteIsHashedOnceAndCheckedBeforeEveryAttempt() throws Exception {
    AtomicReference<byte[]> content = new AtomicReference<>(wav);
    AtomicInteger opens = new AtomicInteger();
    VoiceNote note =
        VoiceNote.ofStream(
            () -> {
              opens.incrementAndGet();
              return new ByteArrayInputStream(content.get());
            },
            "note.wav");
    int opensToMake = opens.get();
    server.enqueue(status(503));
    server.enqueue(status(503));
    scheduler.duringPause(index -> content.set(index == 0 ? wav : new byte[] {1, 2, 3}));

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(note.sha256()).isEqualTo(VoiceNote.ofBytes(wav, "n.wav").sha256());
    assertThat(note.durationMs()).hasValue(1500);
    assertThat(outcome).isInstanceOf(Outcome.AudioChanged.class);
    assertThat(outcome.attempts()).isEqualTo(3);
    // Check and upload for attempts 1 and 2, then the check that found the change.
    assertThat(opens.get() - opensToMake).isEqualTo(5);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aStreamThatFailsDuringTheUploadIsUnreadableNotANetworkFailure() throws Exception {
    AtomicInteger opens = new AtomicInteger();
    AtomicInteger failingOpen = new AtomicInteger(-1);
    VoiceNote note =
        VoiceNote.ofStream(
            () -> {
              InputStream in = new ByteArrayInputStream(wav);
              return opens.incrementAndGet() == failingOpen.get() ? failingAfter(in, 1000) : in;
            },
            "note.wav");
    // After the check, the first upload's stream breaks after 1,000 bytes.
    failingOpen.set(opens.get() + 2);
    server.enqueue(ok());

    Outcome outcome = client().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Unreadable("IOException: the card was removed", 1));
    assertThat(scheduler.pauses()).isEmpty();
  }

  // A non-WAV note: its length comes from the container, so the read timeout scales too.

  @Test
  void anM4aNoteSendsItsLengthAndGetsAScaledReadTimeout() throws Exception {
    Path m4a =
        Path.of(
            Objects.requireNonNull(getClass().getResource("/audio/aac-moov-at-end.m4a")).toURI());
    server.enqueue(ok());

    Outcome outcome = client().transcribe(VoiceNote.ofFile(m4a), TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    String duration = take().getHeaders().get(UploadTimeouts.DURATION_HEADER);
    assertThat(duration).isEqualTo("3500");
    assertThat(new UploadTimeouts().timeoutFor(duration)).isEqualTo(Duration.ofMillis(31_750));
  }

  // Cancellation in every form the app has.

  @Test
  void cancellingTheAppsOwnOkHttpCallsCancelsTheNoteWithoutAResend() throws Exception {
    server.enqueue(stalled());
    server.enqueue(ok());
    OkHttpClient appHttp = httpClient(new OkHttpClient.Builder());
    TranscriptionHandle handle =
        client(b -> b.okHttpClient(appHttp))
            .transcribeAsync(bytesNote(), TranscriptionOptions.defaults());
    take();

    appHttp.dispatcher().cancelAll();

    assertThat(handle.await(ofSeconds(5))).isEqualTo(new Outcome.Cancelled(1));
    assertThat(handle.isCancelled()).isTrue();
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(scheduler.pauses()).isEmpty();
  }

  @Test
  void cancellingTheFutureCancelsTheNote() throws Exception {
    server.enqueue(stalled());
    server.enqueue(ok());
    TranscriptionHandle handle =
        client().transcribeAsync(bytesNote(), TranscriptionOptions.defaults());
    take();

    assertThat(handle.outcome().cancel(true)).isTrue();

    assertThat(handle.isCancelled()).isTrue();
    assertThat(awaitEnded()).isEqualTo("cancelled 1");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void cancellingTheFutureDuringARealPauseEndsItAtOnce() throws Exception {
    CountDownLatch pausing = new CountDownLatch(1);
    server.enqueue(status(503).newBuilder().addHeader("Retry-After", "80").build());
    server.enqueue(ok());
    TranscriptionHandle handle =
        client(b -> b.timing(Timing.system()))
            .transcribeAsync(
                bytesNote(),
                TranscriptionOptions.defaults(),
                CallOptions.defaults()
                    .withListener(
                        new TranscriptionListener() {
                          @Override
                          public void resendScheduled(Attempt failed, Duration p, Failure r) {
                            pausing.countDown();
                          }
                        }));
    assertThat(pausing.await(5, TimeUnit.SECONDS)).isTrue();

    handle.outcome().cancel(false);

    assertThat(awaitEnded()).isEqualTo("cancelled 1");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void interruptingASynchronousCallerAbortsTheCallInFlightAtOnce() throws Exception {
    server.enqueue(stalled());
    server.enqueue(ok());
    BoloClient bolo = client();
    AtomicReference<String> result = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              Outcome outcome = bolo.transcribe(bytesNote(), TranscriptionOptions.defaults());
              result.set(outcome + " interrupted=" + Thread.currentThread().isInterrupted());
            });
    caller.start();
    take();

    caller.interrupt();
    caller.join(5_000);

    // Without the cancel the call would wait for its 30 s read timeout.
    assertThat(result.get()).isEqualTo("Cancelled[attempts=1] interrupted=true");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  // Several notes in flight: events per note, upload progress, one ending each.

  @Test
  void eachNoteHasItsOwnEventsWithItsKeyProgressAndOneEnding() throws Exception {
    server.enqueue(ok());
    server.enqueue(
        new MockResponse.Builder().code(402).body("{\"code\":\"quota_exhausted\"}").build());
    VoiceNote large = VoiceNote.ofBytes(new byte[300_000], "large.ogg");
    RecordingListener first = new RecordingListener();
    RecordingListener second = new RecordingListener();
    BoloClient bolo = client();

    TranscriptionHandle a =
        bolo.transcribeAsync(
            large, TranscriptionOptions.defaults(), CallOptions.defaults().withListener(first));
    Outcome outcomeA = a.await(ofSeconds(5));
    TranscriptionHandle b =
        bolo.transcribeAsync(
            bytesNote(),
            TranscriptionOptions.defaults(),
            CallOptions.defaults().withListener(second).withIdempotencyKey("app-note-7"));
    Outcome outcomeB = b.await(ofSeconds(5));

    assertThat(outcomeA).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcomeB).isInstanceOf(Outcome.Refused.class);
    assertThat(b.noteKey()).isEqualTo("app-note-7");
    assertThat(first.noteKeys).containsOnly(a.noteKey());
    assertThat(second.noteKeys).containsOnly("app-note-7");
    assertThat(first.events).containsExactly("start 1", "transcribed 1");
    assertThat(second.events).containsExactly("start 1", "refused 1: HTTP 402 quota_exhausted");
    assertThat(first.progress).hasSizeGreaterThan(3).last().isEqualTo("1: 300000/300000");
    assertThat(listener.noteKeys).containsOnly(a.noteKey(), "app-note-7");
    assertThat(take().getHeaders().get("Idempotency-Key")).isEqualTo("\"" + a.noteKey() + "\"");
    assertThat(take().getHeaders().get("Idempotency-Key")).isEqualTo("\"app-note-7\"");
  }

  @Test
  void aPerCallPolicyAndTimeoutReplaceTheClientsForThatNoteOnly() throws Exception {
    server.enqueue(status(503));
    server.enqueue(stalled());
    server.enqueue(ok());
    ResendPolicy once = ResendPolicy.builder().maxAttempts(1).build();
    BoloClient bolo = client();

    Outcome refusedOnce =
        bolo.transcribe(
            bytesNote(), TranscriptionOptions.defaults(), CallOptions.defaults().withPolicy(once));
    Outcome timedOut =
        bolo.transcribe(
            bytesNote(),
            TranscriptionOptions.defaults(),
            CallOptions.defaults().withAttemptTimeout(Duration.ofMillis(300)));

    assertThat(refusedOnce).isInstanceOf(Outcome.GaveUp.class);
    assertThat(refusedOnce.attempts()).isEqualTo(1);
    assertThat(timedOut).isInstanceOf(Outcome.Transcribed.class);
    assertThat(listener.events)
        .anyMatch(
            event -> event.startsWith("resend 1 after PT2S: timeout: SocketTimeoutException"));
  }

  // Async runs on OkHttp's enqueue: the app's dispatcher threads, none of the SDK's own.

  @Test
  void notesInFlightRunOnTheAppsOkHttpThreadsAndHoldNoneOfTheirOwn() throws Exception {
    int notes = 8;
    CountDownLatch allArrived = new CountDownLatch(notes);
    CountDownLatch release = new CountDownLatch(1);
    server.setDispatcher(
        new mockwebserver3.Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            allArrived.countDown();
            release.await(10, TimeUnit.SECONDS);
            return ok();
          }
        });
    Set<Thread> appPool = ConcurrentHashMap.newKeySet();
    Set<Thread> progressThreads = ConcurrentHashMap.newKeySet();
    ExecutorService appThreads =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            task -> {
              Thread thread = new Thread(task, "app-http");
              appPool.add(thread);
              return thread;
            });
    Dispatcher dispatcher = new Dispatcher(appThreads);
    dispatcher.setMaxRequestsPerHost(notes);
    OkHttpClient appHttp = httpClient(new OkHttpClient.Builder().dispatcher(dispatcher));
    TranscriptionListener whereProgressRuns =
        new TranscriptionListener() {
          @Override
          public void uploadProgress(Attempt attempt, long sent, long total) {
            progressThreads.add(Thread.currentThread());
          }
        };
    Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
    List<TranscriptionHandle> handles = new ArrayList<>();
    BoloClient bolo = client(b -> b.okHttpClient(appHttp).listener(whereProgressRuns));
    for (int i = 0; i < notes; i++) {
      handles.add(bolo.transcribeAsync(bytesNote(), TranscriptionOptions.defaults()));
    }
    assertThat(allArrived.await(10, TimeUnit.SECONDS)).isTrue();

    int callsInFlight = dispatcher.runningCallsCount();
    List<String> startedMeanwhile = startedSince(threadsBefore, appPool);
    release.countDown();
    for (TranscriptionHandle handle : handles) {
      assertThat(handle.await(ofSeconds(10))).isInstanceOf(Outcome.Transcribed.class);
    }

    assertThat(callsInFlight).isEqualTo(notes);
    assertThat(progressThreads).isNotEmpty();
    assertThat(appPool).containsAll(progressThreads);
    // Every other thread started meanwhile is OkHttp's, Okio's or the test server's.
    assertThat(startedMeanwhile)
        .allMatch(
            name ->
                name.startsWith("OkHttp")
                    || name.startsWith("Okio")
                    || name.startsWith("MockWebServer"));
  }

  private String awaitEnded() throws Exception {
    return RecordingListener.describe(listener.ended.get(5, TimeUnit.SECONDS));
  }

  private static List<String> startedSince(Set<Thread> before, Set<Thread> appPool) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> !before.contains(thread) && !appPool.contains(thread))
        .map(Thread::getName)
        .toList();
  }

  private static InputStream failingAfter(InputStream in, int bytes) {
    return new FilterInputStream(in) {
      private int read;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (read >= bytes) {
          throw new IOException("the card was removed");
        }
        int n = super.read(b, off, Math.min(len, bytes - read));
        read += Math.max(0, n);
        return n;
      }
    };
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.delete(file);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void writeQuietly(Path file, byte[] bytes) {
    try {
      Files.write(file, bytes);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static Duration ofSeconds(long seconds) {
    return Duration.ofSeconds(seconds);
  }
}
