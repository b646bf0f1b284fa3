package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The primary dies in the middle of a storm of notes and comes back: every copy of every note is
 * answered, each note is paid for once (the calls in flight at the primary when it died may be paid
 * twice, no more), and the primary takes notes again once its breaker has let a probe through.
 */
class PrimaryOutageTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final int NOTES = 50;

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  @Test
  void everyCopyIsAnsweredEachNoteChargedOnceAndThePrimaryReturns() throws Exception {
    FakeProvider primary = fixture.provider();
    try (FakeProvider backup = new FakeProvider()) {
      Gateway gateway =
          fixture.start(
              Map.of(
                  "BOLO_ENGINES", "primary,backup",
                  "BOLO_ENGINE_PRIMARY_KIND", "openai",
                  "BOLO_ENGINE_PRIMARY_BASE_URL", primary.baseUrl(),
                  "BOLO_ENGINE_BACKUP_KIND", "openai",
                  "BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl(),
                  "BOLO_ROUTES", "whisper-1=primary/whisper-1,backup/whisper-1"));
      primary.delay(Duration.ofMillis(300));
      backup.delay(Duration.ofMillis(300));
      List<Future<Gateway.Reply>> copies = new ArrayList<>();
      int inFlightAtDeath = 0;
      try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
        for (int n = 0; n < NOTES; n++) {
          byte[] note = TestAudio.wav(1000, 300 + n);
          for (int copy = 0; copy < 2; copy++) {
            copies.add(
                phones.submit(() -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note))));
          }
          if (n == 10) {
            inFlightAtDeath = primary.inFlight();
            primary.kill();
          }
          Thread.sleep(40);
        }
        for (Future<Gateway.Reply> copy : copies) {
          Gateway.Reply reply = copy.get();
          assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        }
      }

      assertThat(primary.calls() + backup.calls()).isBetween(NOTES, NOTES + inFlightAtDeath);
      assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTES * 1000L);

      primary.startAgain();
      long back = System.nanoTime();
      int[] probe = {0};
      Await.until(
          Duration.ofSeconds(60),
          "the primary serves a note again",
          () -> {
            try {
              Gateway.Reply reply =
                  gateway.send(
                      gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(1000, 400 + probe[0]++)));
              return JSON.readTree(reply.body()).path("engine").asText().equals("primary");
            } catch (Exception e) {
              return false;
            }
          });
      assertThat(Duration.ofNanos(System.nanoTime() - back)).isLessThan(Duration.ofMinutes(1));
    }
  }
}
