package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Burst;
import dev.bolo.server.testing.BurstListener;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.work.WorkKey;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import mockwebserver3.MockResponse;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Notes beyond what the provider takes in one request go in pieces cut at their pauses (PROTOCOL.md
 * rule 10). The stand-in provider tells the tone bursts of {@link TestAudio#bursts} apart by their
 * loudness and answers with their names, so an answer shows which bursts each piece held and in
 * which order the gateway put them together.
 */
class LongNotePiecesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final byte[] LECTURE = TestAudio.lecture();

  private static final long LECTURE_MILLIS = TestAudio.LECTURE_MILLIS;

  private static final String ALL_BURSTS = TestAudio.LECTURE_BURSTS;

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  /** Names the bursts each call holds, and records the calls. */
  private final BurstListener listener = new BurstListener();

  /** What the provider answered with a transcript, call by call. */
  private List<BurstListener.Call> calls() {
    return listener.calls();
  }

  @BeforeEach
  void providerNamesTheBurstsItHears() {
    fixture.provider().answerWith(listener::answer);
  }

  private Gateway.Reply upload(byte[] note, String... fields) throws Exception {
    return fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, fields));
  }

  @Test
  void aNoteLongerThanTheModelTakesIsSentInPiecesAtItsPausesAndAnsweredWhole() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    Gateway.Reply reply = upload(LECTURE);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode answer = JSON.readTree(reply.body());
    assertThat(answer.path("text").asText()).isEqualTo(ALL_BURSTS);
    assertThat(answer.path("duration_ms").asLong()).isEqualTo(LECTURE_MILLIS);
    assertThat(calls()).extracting(BurstListener.Call::container).containsOnly("fLaC");
    assertThat(calls()).hasSizeGreaterThanOrEqualTo(4);
    assertThat(calls())
        .allSatisfy(call -> assertThat(call.samples()).isLessThanOrEqualTo(20 * 16000));
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(LECTURE_MILLIS);
    String metrics =
        fixture
            .gateway()
            .send(new Request.Builder().url(fixture.gateway().url("/metrics")).build())
            .body();
    assertThat(metrics)
        .contains(
            "bolo_piece_calls_total{engine=\"openai\",result=\"transcribed\"} "
                + calls().size()
                + ".0")
        .contains("bolo_pieces_running 0.0");
  }

  @Test
  void aWavOfExactlyTheLargestUploadGoesToOpenAiInRequestsItTakes() throws Exception {
    fixture.start(Map.of());
    // 20 s of tone, then 1 s of silence, over and over: 26,214,400 bytes in all, the default
    // BOLO_MAX_UPLOAD_BYTES, which OpenAI refuses as one request once its form is around it.
    short[] pcm = new short[(26_214_400 - 44) / 2];
    for (int n = 0; n < pcm.length; n++) {
      boolean speaking = n % (21 * 16_000) < 20 * 16_000;
      pcm[n] = speaking ? (short) Math.round(9000 * Math.sin(2 * Math.PI * 440 * n / 16_000)) : 0;
    }
    byte[] note = TestAudio.wav(pcm, 16_000);
    assertThat(note).hasSize(26_214_400);

    Gateway.Reply reply = upload(note);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    // Pieces of the same samples are one piece of work: three distinct ones among them.
    assertThat(calls()).hasSizeGreaterThanOrEqualTo(2);
    assertThat(calls())
        .allSatisfy(call -> assertThat(call.bodyBytes()).isLessThanOrEqualTo(26_214_400));
  }

  @Test
  void piecesInFlightStayWithinTheNotesAndTheGatewaysBounds() throws Exception {
    fixture.start(
        Map.of(
            "BOLO_OPENAI_MAX_SECONDS", "20",
            "BOLO_MAX_PIECES_PER_NOTE", "2",
            "BOLO_MAX_CONCURRENT_PIECES", "3"));
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    // The first calls are held until three are in flight at once, however slowly the machine
    // cuts the notes: the gateway's bound is reached for sure, and a fourth it let through would
    // be counted with them.
    CountDownLatch three = new CountDownLatch(3);
    fixture
        .provider()
        .answerWith(
            request -> {
              most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              three.countDown();
              try {
                three.await(30, TimeUnit.SECONDS);
                return listener.answer(request);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              } finally {
                inFlight.decrementAndGet();
              }
            });

    List<Gateway.Reply> replies;
    try (Burst two =
        Burst.send(
            fixture.gateway(),
            List.of(
                fixture.gateway().nativeUpload(Gateway.TOKEN_A, LECTURE),
                fixture.gateway().nativeUpload(Gateway.TOKEN_B, LECTURE)))) {
      replies = two.replies(java.time.Duration.ofSeconds(60));
    }

    assertThat(replies).extracting(Gateway.Reply::status).containsOnly(200);
    assertThat(calls()).hasSizeGreaterThanOrEqualTo(8);
    // Two notes of two pieces at a time would make four; the gateway sends three.
    assertThat(most.get()).isEqualTo(3);
  }

  @Test
  void aNoteLargerThanTheProviderTakesIsSentInRequestsWithinItsLimit() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_REQUEST_BYTES", "1048576"));
    byte[] note = TestAudio.bursts(1000, 9000, 9000, 9000, 9000, 9000, 9000, 9000, 9000);
    assertThat(note.length).isGreaterThan(2 * 1048576);

    Gateway.Reply reply = upload(note);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).path("text").asText())
        .isEqualTo("b0 b1 b2 b3 b4 b5 b6 b7");
    assertThat(calls()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(calls())
        .allSatisfy(call -> assertThat(call.bodyBytes()).isLessThanOrEqualTo(1048576));
  }

  @Test
  void aNoteWithinTheLimitsIsSentWholeAsBefore() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));
    byte[] note = TestAudio.bursts(1000, 4000, 4000, 4000);

    Gateway.Reply reply = upload(note);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(calls())
        .singleElement()
        .satisfies(call -> assertThat(call.samples()).isEqualTo((note.length - 44) / 2));
  }

  @Test
  void aResendRunsOnlyThePieceThatFailedAndTheNoteIsChargedOnce() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));
    fixture.provider().enqueue(new MockResponse.Builder().code(500).body("{}").build());

    Gateway.Reply failed = upload(LECTURE);

    assertThat(failed.status()).as(failed.body()).isEqualTo(502);
    assertThat(fixture.ledger().chargedMillis("alpha")).isZero();

    Gateway.Reply resent = upload(LECTURE);

    assertThat(resent.status()).as(resent.body()).isEqualTo(200);
    assertThat(JSON.readTree(resent.body()).path("text").asText()).isEqualTo(ALL_BURSTS);
    // Every piece was transcribed once; the one refused was sent once more, and nothing else was.
    Map<String, Long> transcriptsPerPiece =
        calls().stream()
            .collect(Collectors.groupingBy(BurstListener.Call::audioSha256, Collectors.counting()));
    assertThat(transcriptsPerPiece).hasSizeGreaterThanOrEqualTo(4);
    assertThat(transcriptsPerPiece.values()).containsOnly(1L);
    assertThat(fixture.provider().calls()).isEqualTo(transcriptsPerPiece.size() + 1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(LECTURE_MILLIS);
  }

  @Test
  void aNoteWithoutPausesIsCutAtItsQuietestPointsWithinTheLimit() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    Gateway.Reply reply = upload(TestAudio.tone(50_000));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(calls()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(calls())
        .allSatisfy(call -> assertThat(call.samples()).isLessThanOrEqualTo(20 * 16000));
    assertThat(calls().stream().mapToLong(BurstListener.Call::samples).sum())
        .isEqualTo(50 * 16000L);
  }

  @Test
  void aLongNoteIsCutIntoPiecesThatKeepItsCallsInFlightBusy() throws Exception {
    // Six minutes, one more than the provider takes: four calls in flight share it in pieces of at
    // most two minutes (the shortest made for sharing), where one at a time would take five.
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "300", "BOLO_MAX_PIECES_PER_NOTE", "4"));

    // A tone rising in pitch without a pause, so that no two pieces hold the same samples.
    short[] rising = new short[360 * 16_000];
    double phase = 0;
    for (int n = 0; n < rising.length; n++) {
      phase += 2 * Math.PI * (300 + 300.0 * n / rising.length) / 16_000;
      rising[n] = (short) Math.round(9000 * Math.sin(phase));
    }

    Gateway.Reply reply = upload(TestAudio.wav(rising, 16_000));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    // Three pieces of two minutes, or four where the 30-second stretches do not fill them.
    assertThat(calls()).hasSizeBetween(3, 4);
    assertThat(calls())
        .allSatisfy(call -> assertThat(call.samples()).isLessThanOrEqualTo(120 * 16000));
    assertThat(calls().stream().mapToLong(BurstListener.Call::samples).sum())
        .isEqualTo(360 * 16000L);
  }

  @Test
  void aNoteOfPureSilenceAsksTheProviderNothing() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    Gateway.Reply reply = upload(TestAudio.silence(30_000));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).path("text").asText()).isEmpty();
    assertThat(calls()).isEmpty();
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(30_000);
  }

  @Test
  void aPieceTheProviderRefusesFailsTheNoteWithItsRefusalAndNothingIsCharged() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(400)
                .setHeader("Content-Type", "application/json")
                .body("{\"error\":{\"message\":\"Audio file might be corrupted or unsupported\"}}")
                .build());

    Gateway.Reply reply = upload(LECTURE);

    assertThat(reply.status()).as(reply.body()).isEqualTo(422);
    JsonNode error = JSON.readTree(reply.body());
    assertThat(error.path("code").asText()).isEqualTo("upstream_rejected");
    assertThat(error.path("error").asText()).contains("might be corrupted");
    assertThat(fixture.ledger().chargedMillis("alpha")).isZero();
  }

  @Test
  void piecesSentSideBySideAreEachAskedWithTheClientsPrompt() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    Gateway.Reply reply = upload(LECTURE, "prompt", "A lecture on tones.");

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(calls()).hasSizeGreaterThanOrEqualTo(4);
    assertThat(calls())
        .allSatisfy(call -> assertThat(call.prompt()).isEqualTo("A lecture on tones."));
  }

  @Test
  void piecesSentOneAtATimeFollowTheTextBeforeThem() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20", "BOLO_MAX_PIECES_PER_NOTE", "1"));

    Gateway.Reply reply = upload(LECTURE, "prompt", "Tones.");

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).path("text").asText()).isEqualTo(ALL_BURSTS);
    List<BurstListener.Call> inOrder = calls();
    assertThat(inOrder).hasSizeGreaterThanOrEqualTo(4);
    assertThat(inOrder.getFirst().prompt()).isEqualTo("Tones.");
    for (int i = 1; i < inOrder.size(); i++) {
      assertThat(inOrder.get(i).prompt()).isEqualTo("Tones. " + inOrder.get(i - 1).text());
    }
  }

  @Test
  void aStreamSendsEachPiecesTextInOrder() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));
    Request streamed = openAi(LECTURE, "stream", "true");

    String events;
    try (Response live = fixture.gateway().client().newCall(streamed).execute()) {
      assertThat(live.code()).isEqualTo(200);
      events = live.body().string();
    }

    StringBuilder deltas = new StringBuilder();
    int count = 0;
    for (String line : events.split("\n")) {
      if (line.startsWith("data: ") && line.contains("transcript.text.delta")) {
        deltas.append(JSON.readTree(line.substring(6)).path("delta").asText());
        count++;
      }
    }
    assertThat(count).isGreaterThanOrEqualTo(4);
    assertThat(deltas.toString()).isEqualTo(ALL_BURSTS);
    assertThat(events).contains("transcript.text.done");
  }

  @Test
  void aLookupWhileThePiecesRunSaysHowManySecondsAreDone() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20", "BOLO_MAX_PIECES_PER_NOTE", "1"));
    CountDownLatch secondAsked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger asked = new AtomicInteger();
    fixture
        .provider()
        .answerWith(
            request -> {
              if (asked.incrementAndGet() == 2) {
                secondAsked.countDown();
                awaitQuietly(release);
              }
              return listener.answer(request);
            });
    try {
      CompletableFuture<Gateway.Reply> upload =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return upload(LECTURE);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThat(secondAsked.await(30, TimeUnit.SECONDS)).isTrue();

      Gateway.Reply running =
          fixture
              .gateway()
              .send(
                  new Request.Builder()
                      .url(
                          fixture
                              .gateway()
                              .url("/v1/transcriptions/" + WorkKey.sha256Hex(LECTURE) + "?wait=0"))
                      .header("Authorization", "Bearer " + Gateway.TOKEN_A)
                      .build());

      assertThat(running.status()).as(running.body()).isEqualTo(202);
      JsonNode progress = JSON.readTree(running.body());
      long firstPieceEnds = calls().getFirst().samples() / 16;
      assertThat(progress.path("seconds_total").asDouble()).isEqualTo(68.0);
      assertThat(progress.path("seconds_done").asDouble())
          .isGreaterThan(firstPieceEnds / 1000.0)
          .isLessThan(20.0);
      release.countDown();
      assertThat(upload.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    } finally {
      release.countDown();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** An upload to the OpenAI-compatible endpoint, as an OpenAI SDK sends it. */
  private Request openAi(byte[] audio, String... fields) {
    return Gateway.openAiUploadRequest(
        fixture.gateway().url("/v1/audio/transcriptions"), Gateway.TOKEN_A, audio, fields);
  }
}
