package dev.bolo.client;

import static dev.bolo.client.JsonAnswers.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.CuttingProxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okio.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large notes go as tus 1.0.0 resumable uploads: against a scripted server on loopback behind a
 * proxy that cuts connections mid-append as a phone's link does, with the policy on a fake clock.
 */
class ResumableUploadTest {

  private static final String OK_BODY =
      "{\"text\":\"buy milk\",\"deduplicated\":false,\"audio_sha256\":\"ab12\",\"duration_ms\":1500,"
          + "\"request_id\":\"r-1\",\"engine\":\"offline\"}";
  private static final Transcript OK =
      new Transcript("buy milk", false, "ab12", 1500L, "r-1", "offline");
  private static final String UPLOAD = "/bolo/v1/uploads/u-1";

  @StartStop private final MockWebServer server = new MockWebServer();

  private final FakeTime time = new FakeTime();
  private final FakeScheduler scheduler = new FakeScheduler(time);
  private final RecordingListener listener = new RecordingListener();
  private final byte[] audio = NoteLengthTest.wav(600_000, 600_000, false);
  private final VoiceNote note = VoiceNote.ofBytes(audio, "note.wav");

  /** Scripted answers per kind of request, in order; every request the server read, in order. */
  private final Map<String, Deque<MockResponse>> answers = new HashMap<>();

  private final List<RecordedRequest> received = new CopyOnWriteArrayList<>();
  private volatile Runnable onHead = () -> {};
  private volatile Runnable onDelete = () -> {};
  private CuttingProxy proxy;

  @BeforeEach
  void script() throws IOException {
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            received.add(request);
            String kind = kindOf(request);
            if (kind.equals("head")) {
              onHead.run();
            }
            if (kind.equals("delete")) {
              onDelete.run();
            }
            Deque<MockResponse> queue = answers.computeIfAbsent(kind, k -> new ArrayDeque<>());
            synchronized (queue) {
              MockResponse next = queue.pollFirst();
              return next != null ? next : json(599, "{\"error\":\"unscripted " + kind + "\"}");
            }
          }
        });
    proxy = CuttingProxy.start(server.getPort());
  }

  @AfterEach
  void stopProxy() throws IOException {
    proxy.close();
  }

  private static String kindOf(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    String method = request.getMethod();
    if (path.startsWith("/bolo/v1/transcriptions")) {
      return method.equals("GET") ? "lookup" : "post";
    }
    if (path.endsWith("/transcription")) {
      return "transcription";
    }
    return switch (method) {
      case "POST" -> "create";
      case "HEAD" -> "head";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      default -> "other";
    };
  }

  private void answer(String kind, MockResponse... responses) {
    answers.computeIfAbsent(kind, k -> new ArrayDeque<>()).addAll(Arrays.asList(responses));
  }

  private BoloClient.Builder client() {
    return BoloClient.builder()
        .baseUrl("http://127.0.0.1:" + proxy.port() + "/bolo/")
        .token("device-token")
        .policy(ResendPolicy.standard().withoutJitter())
        .timing(scheduler.timing())
        .listener(listener);
  }

  @Test
  void aLargeNoteIsCreatedThenAppendedWholeAndItsTranscriptFetched() {
    answer("create", created(0));
    answer("patch", appended(audio.length));
    answer("transcription", ok());

    Outcome outcome =
        client().build().transcribe(note, TranscriptionOptions.defaults().withLanguage("en"));

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("create", "patch", "transcription");
    RecordedRequest create = received.get(0);
    assertThat(create.getUrl().encodedPath()).isEqualTo("/bolo/v1/uploads");
    assertThat(create.getHeaders().get("Tus-Resumable")).isEqualTo("1.0.0");
    assertThat(create.getHeaders().get("Upload-Length")).isEqualTo(Long.toString(audio.length));
    assertThat(create.getHeaders().get("Authorization")).isEqualTo("Bearer device-token");
    assertThat(create.getHeaders().get("Idempotency-Key")).startsWith("\"").endsWith("\"");
    assertThat(create.getBodySize()).as("plain creation: no bytes with it").isZero();
    assertThat(metadata(create))
        .containsEntry("sha256", note.sha256())
        .containsEntry("filename", "note.wav")
        .containsEntry("language", "en")
        .doesNotContainKey("model");
    RecordedRequest patch = received.get(1);
    assertThat(patch.getUrl().encodedPath()).isEqualTo(UPLOAD);
    assertThat(patch.getHeaders().get("Upload-Offset")).isEqualTo("0");
    assertThat(patch.getHeaders().get("Content-Type")).isEqualTo("application/offset+octet-stream");
    assertThat(patch.getHeaders().get("Tus-Resumable")).isEqualTo("1.0.0");
    assertThat(body(patch)).isEqualTo(audio);
    RecordedRequest transcription = received.get(2);
    assertThat(transcription.getUrl().encodedPath()).isEqualTo(UPLOAD + "/transcription");
    assertThat(transcription.getUrl().queryParameter("wait"))
        .as("read timeout 30 s + half of the 18.75 s note, less 10 s for the answer to arrive")
        .isEqualTo("29");
    assertThat(listener.progress).last().isEqualTo("1: " + audio.length + "/" + audio.length);
  }

  @Test
  void theTranscriptWaitGrowsWithTheNoteUpToTheGatewaysSixtySeconds() {
    answer("create", created(0));
    answer("patch", appended(audio.length));
    answer("transcription", ok());

    client().build().transcribe(note.withDurationMs(300_000), TranscriptionOptions.defaults());

    assertThat(received.get(2).getUrl().queryParameter("wait"))
        .as("read timeout capped at 120 s; the gateway waits at most 60 s")
        .isEqualTo("60");
  }

  @Test
  void aLinkCutMidAppendIsResumedFromTheGatewaysOffsetWithinTheSameAttempt() {
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(150_000));
    answer("patch", appended(audio.length));
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds())
        .as("the cut append never reached the server whole")
        .containsExactly("create", "head", "patch", "transcription");
    RecordedRequest resumed = received.get(2);
    assertThat(resumed.getHeaders().get("Upload-Offset")).isEqualTo("150000");
    assertThat(body(resumed)).isEqualTo(Arrays.copyOfRange(audio, 150_000, audio.length));
    assertThat(proxy.upstreamBytes())
        .as("the note once, the cut part again, and headers")
        .isLessThan(audio.length + 200_000 - 150_000 + 4_000);
    assertThat(scheduler.pauses()).as("no pause: a resume is part of its attempt").isEmpty();
    assertThat(listener.events).containsExactly("start 1", "transcribed 1");
    assertThat(listener.progress).contains("1: " + audio.length + "/" + audio.length);
  }

  @Test
  void aGatewayStillTakingTheBrokenAppendIsAskedAgainBeforeTheResume() {
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(0), offset(150_000));
    answer("patch", appended(audio.length));
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("create", "head", "head", "patch", "transcription");
    assertThat(received.get(3).getHeaders().get("Upload-Offset")).isEqualTo("150000");
    assertThat(scheduler.pauses()).containsExactly(TusUpload.SETTLE_PAUSES.get(0));
  }

  @Test
  void aResumeThatGainsNothingEndsTheAttemptAndTheNextOneLooksUpThenResumes() {
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(0), offset(0), offset(0), offset(0), offset(100_000));
    answer("lookup", json(404, "{\"error\":\"no such work\",\"code\":\"not_found\"}"));
    answer("patch", appended(audio.length));
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(kinds())
        .containsExactly(
            "create", "head", "head", "head", "head", "lookup", "head", "patch", "transcription");
    assertThat(received.get(7).getHeaders().get("Upload-Offset")).isEqualTo("100000");
    assertThat(scheduler.pauses())
        .containsExactly(
            Duration.ofMillis(250),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2));
    assertThat(listener.events.get(1)).startsWith("resend 1 after PT2S: connection");
  }

  @Test
  void aLinkThatBreaksWithoutEndHasTheSeedsFourAttemptsAndOneUploadOnTheGateway() {
    long[] cuts = new long[40];
    Arrays.fill(cuts, 5_000);
    cuts[0] = 50_000;
    proxy.cutAfter(cuts);
    answer("create", created(0));
    // Every HEAD finds the offset where it was: the link carries nothing any more.
    for (int i = 0; i < 40; i++) {
      answer("head", offset(10_000));
    }
    for (int i = 0; i < 3; i++) {
      answer("lookup", json(404, "{\"error\":\"no such work\",\"code\":\"not_found\"}"));
    }

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(outcome.attempts()).isEqualTo(4);
    assertThat(kinds()).filteredOn("create"::equals).hasSize(1);
    assertThat(scheduler.pauses())
        .filteredOn(pause -> !TusUpload.SETTLE_PAUSES.contains(pause))
        .as("the policy's pauses")
        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
  }

  @Test
  void resumesWithinOneAttemptAreBoundedEvenWhileEachMovesTheOffset() {
    long[] cuts = new long[TusUpload.MAX_RESUMES_PER_ATTEMPT + 1];
    Arrays.fill(cuts, 8_000);
    proxy.cutAfter(cuts);
    answer("create", created(0));
    for (int i = 1; i <= TusUpload.MAX_RESUMES_PER_ATTEMPT + 1; i++) {
      answer("head", offset(i * 1_000L));
    }

    Outcome outcome =
        client()
            .policy(ResendPolicy.builder().maxAttempts(1).build())
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.GaveUp.class);
    assertThat(kinds()).filteredOn("head"::equals).hasSize(TusUpload.MAX_RESUMES_PER_ATTEMPT + 1);
  }

  @Test
  void anAppendAtTheWrongOffsetGoesOnFromTheOffsetTheGatewayNames() {
    answer("create", created(0));
    answer(
        "patch",
        new MockResponse.Builder()
            .code(409)
            .addHeader("Upload-Offset", "4096")
            .addHeader("Content-Type", "application/json")
            .body("{\"error\":\"wrong offset\",\"code\":\"offset_mismatch\"}")
            .build(),
        appended(audio.length));
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(received.get(2).getHeaders().get("Upload-Offset")).isEqualTo("4096");
    assertThat(body(received.get(2))).isEqualTo(Arrays.copyOfRange(audio, 4096, audio.length));
  }

  @Test
  void theAnswerToTheLastAppendLostOnTheWayBackNeedsNoByteAgain() {
    answer("create", created(0));
    answer(
        "patch",
        new MockResponse.Builder()
            .onResponseStart(new mockwebserver3.SocketEffect.CloseSocket(true, false, false))
            .build());
    answer("head", offset(audio.length));
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("create", "patch", "head", "transcription");
  }

  @Test
  void workStillRunningIsAskedForAgainWithinTheSameAttempt() {
    answer("create", created(0));
    answer("patch", appended(audio.length));
    answer("transcription", RunningAnswer.at(30, 90), RunningAnswer.withoutProgress(), ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds())
        .containsExactly("create", "patch", "transcription", "transcription", "transcription");
    assertThat(received.get(4).getUrl().encodedPath()).isEqualTo(UPLOAD + "/transcription");
    assertThat(scheduler.pauses()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
    assertThat(listener.transcribing).containsExactly("1: 30.0/90.0");
  }

  @Test
  void failedWorkIsUploadedAfreshOnTheResend() {
    answer("create", created(0), created(0));
    answer("patch", appended(audio.length), appended(audio.length));
    answer(
        "transcription",
        json(502, "{\"error\":\"engine failed\",\"code\":\"upstream_error\"}"),
        ok());
    answer("lookup", json(404, "{\"error\":\"no such work\",\"code\":\"not_found\"}"));

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(kinds())
        .containsExactly(
            "create", "patch", "transcription", "lookup", "create", "patch", "transcription");
  }

  @Test
  void anExpiredUploadIsCreatedAgainOnceInTheNextAttempt() {
    answer("create", created(0), created(0));
    answer(
        "patch",
        json(503, "{\"error\":\"busy\",\"code\":\"server_unavailable\"}"),
        appended(audio.length));
    answer("lookup", json(404, "{\"error\":\"no such work\",\"code\":\"not_found\"}"));
    answer("head", new MockResponse.Builder().code(404).build());
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 2));
    assertThat(kinds())
        .containsExactly("create", "patch", "lookup", "head", "create", "patch", "transcription");
  }

  @Test
  void anAppendThatReachesAnotherInstanceStartsTheNoteOverAsANewUpload() {
    answer("create", created(0), created(0));
    answer(
        "patch",
        json(
            421,
            "{\"error\":\"this upload's bytes are held by another gateway instance\","
                + "\"code\":\"wrong_instance\"}"),
        appended(audio.length));
    answer("transcription", ok());

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("create", "patch", "create", "patch", "transcription");
    // The second upload is a new one, appended from its start.
    assertThat(received.get(3).getHeaders().get("Upload-Offset")).isEqualTo("0");
  }

  @Test
  void aBalancerThatMisroutesEveryUploadEndsTheNoteWithTheGatewaysErrorAfterOneRestart() {
    MockResponse misrouted =
        json(
            421,
            "{\"error\":\"this upload's bytes are held by another gateway instance\","
                + "\"code\":\"wrong_instance\"}");
    answer("create", created(0), created(0));
    answer("patch", misrouted, misrouted);

    Outcome outcome = client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Refused.class);
    assertThat(((Outcome.Refused) outcome).error().code()).isEqualTo("wrong_instance");
    assertThat(kinds()).containsExactly("create", "patch", "create", "patch");
  }

  @ParameterizedTest
  @ValueSource(ints = {404, 405})
  void aGatewayWithoutUploadsGetsThePlainPostAndTheClientRemembers(int status) {
    answer("create", json(status, "{\"error\":\"no route\",\"code\":\"not_found\"}"));
    answer("post", ok(), ok());
    BoloClient client = client().build();

    Outcome first = client.transcribe(note, TranscriptionOptions.defaults());
    Outcome second =
        client.transcribe(
            VoiceNote.ofBytes(NoteLengthTest.wav(500_000, 500_000, false), "other.wav"),
            TranscriptionOptions.defaults());

    assertThat(first).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(second).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("create", "post", "post");
  }

  @Test
  void aNoteBelowTheThresholdIsPostedWhole() {
    answer("post", ok());

    Outcome outcome =
        client()
            .resumableThreshold(audio.length + 1)
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("post");
  }

  @Test
  void aNoteAtTheThresholdIsUploadedResumably() {
    answer("create", created(0));
    answer("patch", appended(audio.length));
    answer("transcription", ok());

    Outcome outcome =
        client()
            .resumableThreshold(audio.length)
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(OK, 1));
    assertThat(kinds()).containsExactly("create", "patch", "transcription");
  }

  @Test
  void thresholdZeroOrTheSwitchSendsEveryNoteWhole() {
    answer("post", ok(), ok());

    client().resumableThreshold(0).build().transcribe(note, TranscriptionOptions.defaults());
    client().resumableUploads(false).build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(kinds()).containsExactly("post", "post");
  }

  @Test
  void aFileChangedDuringTheUploadIsNotAppendedAgainAndItsUploadIsDeleted(@TempDir Path dir)
      throws Exception {
    java.util.concurrent.CountDownLatch deleted = new java.util.concurrent.CountDownLatch(1);
    onDelete = deleted::countDown;
    Path file = dir.resolve("note.wav");
    Files.write(file, audio);
    VoiceNote fromFile = VoiceNote.ofFile(file);
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(150_000));
    answer("delete", new MockResponse.Builder().code(204).build());
    onHead =
        () -> {
          try {
            byte[] changed = audio.clone();
            changed[audio.length - 1] ^= 1;
            Files.write(file, changed);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        };

    Outcome outcome = client().build().transcribe(fromFile, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.AudioChanged.class);
    assertThat(deleted.await(10, TimeUnit.SECONDS)).as("the upload is deleted").isTrue();
    assertThat(kinds()).containsExactly("create", "head", "delete");
  }

  @Test
  void aCancelDuringAResumeSendsNothingAfterIt() throws Exception {
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(150_000));
    AtomicReference<TranscriptionHandle> handle = new AtomicReference<>();
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    onHead =
        () -> {
          try {
            started.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          handle.get().cancel();
        };

    handle.set(
        client()
            .build()
            .transcribeAsync(note, TranscriptionOptions.defaults(), CallOptions.defaults()));
    started.countDown();
    Outcome outcome = handle.get().outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(Outcome.Cancelled.class);
    assertThat(kinds()).containsExactly("create", "head");
  }

  @Test
  void aCancelWhileWaitingForTheGatewayToSettleEndsTheNoteWithNothingMoreSent() throws Exception {
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(0), offset(150_000));
    AtomicReference<TranscriptionHandle> handle = new AtomicReference<>();
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    scheduler.duringPause(
        index -> {
          started.await(10, TimeUnit.SECONDS);
          handle.get().cancel();
        });
    scheduler.cancelledWhen(() -> handle.get().isCancelled());

    handle.set(
        client()
            .build()
            .transcribeAsync(note, TranscriptionOptions.defaults(), CallOptions.defaults()));
    started.countDown();
    Outcome outcome = handle.get().outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome).isEqualTo(new Outcome.Cancelled(1));
    assertThat(kinds()).containsExactly("create", "head");
  }

  @Test
  void aListenerHearsTheResumeAndProgressGoesOnFromTheGatewaysOffset() {
    proxy.cutAfter(200_000);
    answer("create", created(0));
    answer("head", offset(150_000));
    answer("patch", appended(audio.length));
    answer("transcription", ok());
    List<String> resumed = new CopyOnWriteArrayList<>();
    List<Long> progress = new CopyOnWriteArrayList<>();
    TranscriptionListener watcher =
        new TranscriptionListener() {
          @Override
          public void uploadResumed(Attempt attempt, long offset, long bytesTotal) {
            resumed.add(attempt.number() + "@" + offset + "/" + bytesTotal);
            progress.add(-1L);
          }

          @Override
          public void uploadProgress(Attempt attempt, long bytesSent, long bytesTotal) {
            progress.add(bytesSent);
          }
        };

    client()
        .build()
        .transcribe(
            note, TranscriptionOptions.defaults(), CallOptions.defaults().withListener(watcher));

    assertThat(resumed).containsExactly("1@150000/" + audio.length);
    List<Long> afterResume = progress.subList(progress.indexOf(-1L) + 1, progress.size());
    assertThat(afterResume).isNotEmpty().isSorted().allMatch(sent -> sent > 150_000);
    assertThat(afterResume).last().isEqualTo((long) audio.length);
  }

  private List<String> kinds() {
    return received.stream().map(ResumableUploadTest::kindOf).toList();
  }

  private static Map<String, String> metadata(RecordedRequest request) {
    Map<String, String> pairs = new HashMap<>();
    String header = request.getHeaders().get("Upload-Metadata");
    for (String pair : header == null ? new String[0] : header.split(",")) {
      String[] kv = pair.trim().split(" ");
      pairs.put(kv[0], new String(Base64.getDecoder().decode(kv[1]), StandardCharsets.UTF_8));
    }
    return pairs;
  }

  private static byte[] body(RecordedRequest request) {
    ByteString body = request.getBody();
    return body == null ? new byte[0] : body.toByteArray();
  }

  private static MockResponse created(long offset) {
    return new MockResponse.Builder()
        .code(201)
        .addHeader("Location", UPLOAD)
        .addHeader("Tus-Resumable", "1.0.0")
        .addHeader("Upload-Offset", Long.toString(offset))
        .build();
  }

  private static MockResponse appended(long offset) {
    return new MockResponse.Builder()
        .code(204)
        .addHeader("Tus-Resumable", "1.0.0")
        .addHeader("Upload-Offset", Long.toString(offset))
        .build();
  }

  private MockResponse offset(long offset) {
    return new MockResponse.Builder()
        .code(200)
        .addHeader("Tus-Resumable", "1.0.0")
        .addHeader("Upload-Offset", Long.toString(offset))
        .addHeader("Upload-Length", Long.toString(audio.length))
        .addHeader("Cache-Control", "no-store")
        .build();
  }

  private static MockResponse ok() {
    return json(200, OK_BODY);
  }
}
