package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.ThreadDump;
import dev.bolo.testkit.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A note waiting for its provider keeps no request thread: the answer is written when the work
 * ends, and everything the request does after its handler (the drain's count, the access line,
 * letting go of the upload) waits for that answer.
 */
class RequestLaterAnswerTest {

  private static final int NOTES = 20;

  // Every note spools to disk, so letting go of an upload shows in bolo_spool_bytes.
  @RegisterExtension
  final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of("BOLO_UPLOAD_MEMORY_BYTES", "0"));

  @Test
  void notesWaitingForTheirProviderHoldNoRequestThreadAndAreAnsweredWhenItAnswers()
      throws Exception {
    Gateway gateway = fixture.start(Map.of());
    FakeProvider provider = fixture.provider().hold();
    try (LogCapture logs = LogCapture.start();
        ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Gateway.Reply>> replies = new ArrayList<>();
      for (int i = 0; i < NOTES; i++) {
        byte[] note = TestAudio.wav(400, 300 + i);
        String token = i % 2 == 0 ? Gateway.TOKEN_A : Gateway.TOKEN_B;
        replies.add(phones.submit(() -> gateway.send(gateway.nativeUpload(token, note))));
      }
      Await.until(
          () -> provider.inFlight() == NOTES, () -> "provider calls: " + provider.inFlight());

      ThreadDump waiting = ThreadDump.now();
      // One thread per note waits, the work's, in its provider call; none in a request's handler.
      assertThat(waiting.threadsIn("Transcriber.runOnce")).isEqualTo(NOTES);
      assertThat(waiting.threadsIn("TranscriptionHandler")).isZero();
      assertThat(waiting.threadsIn("WorkCoordinator.serve")).isZero();
      // They are answered later, but in flight until then: a drain waits for them.
      String metrics = gateway.app().metrics().scrape();
      assertThat(metrics)
          .contains("bolo_transcription_requests_in_flight " + NOTES + ".0")
          .contains("bolo_http_requests_active " + NOTES + ".0");
      assertThat(accessLines(logs)).isZero();
      assertThat(spoolBytes(gateway)).isPositive();

      provider.release();
      for (Future<Gateway.Reply> reply : replies) {
        Gateway.Reply answered = reply.get(30, TimeUnit.SECONDS);
        assertThat(answered.status()).isEqualTo(200);
        assertThat(answered.body()).contains("transcript of ");
      }
      Await.until(() -> accessLines(logs) == NOTES, logs::text);
      assertThat(logs.text()).contains("device=alpha", "device=bravo");
      Await.until(
          () ->
              gateway
                  .app()
                  .metrics()
                  .scrape()
                  .contains("bolo_transcription_requests_in_flight 0.0"),
          () -> gateway.app().metrics().scrape());
      // Each upload was let go once answered: no note is left in the spool.
      Await.until(() -> spoolBytes(gateway) == 0, () -> gateway.app().metrics().scrape());
    }
  }

  @Test
  void aNoteWhoseExchangeTheStoppingServerEndedIsNotAnsweredIntoItAndItsWorkStillFinishes()
      throws Exception {
    FakeProvider provider = fixture.provider().hold();
    // Started outside the fixture: the test stops it while the note waits.
    Gateway gateway =
        Gateway.openAi(provider, fixture.dataDir(), Map.of("BOLO_UPLOAD_MEMORY_BYTES", "0"));
    Gateway.Reply told;
    String logged;
    try (LogCapture logs = LogCapture.start();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Gateway.Reply> phone =
          threads.submit(
              () -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(3_000, 41))));
      Await.until(() -> provider.inFlight() == 1, () -> "provider calls: " + provider.inFlight());

      // Stopped with no drain: Jetty ends the waiting exchange itself, and the work goes on.
      Future<?> stopped = threads.submit(gateway::close);
      told = phone.get(30, TimeUnit.SECONDS);
      provider.release();
      stopped.get(30, TimeUnit.SECONDS);
      logged = logs.text();
    }
    // The phone is told to resend, under the id the gateway's lines about its note carry.
    assertThat(told.status()).as(told::body).isEqualTo(503);
    assertThat(told.body()).contains("server_unavailable", "stopping");
    assertThat(told.retryAfter()).isEqualTo("2");
    assertThat(logged)
        .containsPattern(
            "RequestLog (request_id="
                + told.requestId()
                + ", device=alpha|device=alpha, request_id="
                + told.requestId()
                + ") - POST /v1/transcriptions -> 503");
    // The work's answer found its exchange ended and touched nothing of it. (The usage roll-up the
    // start began may still be flushing when the close stops it, which it logs as a failure: that
    // line is the close's, not the answer's.)
    assertThat(
            logged
                .lines()
                .filter(line -> !line.contains("usage roll-up failed"))
                .collect(Collectors.joining("\n")))
        .doesNotContain("Exception")
        .doesNotContain("ERROR")
        .doesNotContain("WARN")
        .doesNotContain("POST /v1/transcriptions -> 200");
    // The work finished: its success is kept, charged once and recorded, so a resend replays it.
    try (LedgerProbe ledger = LedgerProbe.open(fixture.dataDir())) {
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(3_000L);
      assertThat(ledger.usage("alpha").requests()).isEqualTo(1);
    }
    assertThat(provider.calls()).isEqualTo(1);
  }

  private static long accessLines(LogCapture logs) {
    return logs.text()
        .lines()
        .filter(
            line -> line.contains("RequestLog") && line.contains("POST /v1/transcriptions -> 200"))
        .count();
  }

  private static double spoolBytes(Gateway gateway) {
    return gateway
        .app()
        .metrics()
        .scrape()
        .lines()
        .filter(line -> line.startsWith("bolo_spool_bytes "))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
        .findFirst()
        .orElseThrow();
  }
}
