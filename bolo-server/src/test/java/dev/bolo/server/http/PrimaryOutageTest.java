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

  /** The notes at the primary when it dies. */
  private static final int DIES_UNDER = 11;

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
      // The first notes reach the primary and are held there; it dies under them.
      primary.hold();
      List<Future<Gateway.Reply>> copies = new ArrayList<>();
      int inFlightAtDeath;
      try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
        for (int n = 0; n < DIES_UNDER; n++) {
          sendTwice(gateway, phones, copies, n);
        }
        Await.until(
            () -> primary.calls() == DIES_UNDER, () -> primary.calls() + " calls at the primary");
        inFlightAtDeath = primary.inFlight();
        primary.kill();
        primary.release();
        // The rest arrive while it is dead.
        for (int n = DIES_UNDER; n < NOTES; n++) {
          sendTwice(gateway, phones, copies, n);
        }
        for (Future<Gateway.Reply> copy : copies) {
          Gateway.Reply reply = copy.get();
          assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        }
      }

      assertThat(inFlightAtDeath).isEqualTo(DIES_UNDER);
      assertThat(primary.calls() + backup.calls()).isBetween(NOTES, NOTES + inFlightAtDeath);
      assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTES * 1000L);

      primary.startAgain();
      // Its breaker is open: notes still go to the backup, until the breaker has been open its
      // 30 s on the gateway's ticker and lets a real note probe the primary.
      assertThat(engineOf(gateway, 400)).isEqualTo("backup");
      gateway.advance(Duration.ofSeconds(31));
      assertThat(engineOf(gateway, 401)).isEqualTo("primary");
    }
  }

  private static void sendTwice(
      Gateway gateway, ExecutorService phones, List<Future<Gateway.Reply>> copies, int n) {
    byte[] note = TestAudio.wav(1000, 300 + n);
    for (int copy = 0; copy < 2; copy++) {
      copies.add(phones.submit(() -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note))));
    }
  }

  /** The engine that served a new note. */
  private static String engineOf(Gateway gateway, long seed) throws Exception {
    Gateway.Reply reply =
        gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(1000, seed)));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return JSON.readTree(reply.body()).path("engine").asText();
  }
}
