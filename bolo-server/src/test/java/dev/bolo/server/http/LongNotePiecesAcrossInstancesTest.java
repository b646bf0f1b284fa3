package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.testing.BurstListener;
import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import java.util.Map;
import java.util.stream.Collectors;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pieces of a long note are work kept in the shared store (PROTOCOL.md rule 10): a resend that
 * another instance receives finds the pieces the first one finished.
 */
class LongNotePiecesAcrossInstancesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final ClusterExtension cluster = new ClusterExtension(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

  private final BurstListener listener = new BurstListener();

  @Test
  void aResendToAnotherInstanceRunsOnlyThePieceThatFailed() throws Exception {
    cluster.provider().answerWith(listener::answer);
    cluster.provider().enqueue(new MockResponse.Builder().code(500).body("{}").build());
    Gateway first = cluster.start("a");
    Gateway second = cluster.start("b");
    byte[] lecture = TestAudio.lecture();

    Gateway.Reply failed = first.send(first.nativeUpload(Gateway.TOKEN_A, lecture));
    Gateway.Reply resent = second.send(second.nativeUpload(Gateway.TOKEN_A, lecture));

    assertThat(failed.status()).as(failed.body()).isEqualTo(502);
    assertThat(resent.status()).as(resent.body()).isEqualTo(200);
    assertThat(JSON.readTree(resent.body()).path("text").asText())
        .isEqualTo(TestAudio.LECTURE_BURSTS);
    Map<String, Long> transcriptsPerPiece =
        listener.calls().stream()
            .collect(Collectors.groupingBy(BurstListener.Call::audioSha256, Collectors.counting()));
    assertThat(transcriptsPerPiece).hasSizeGreaterThanOrEqualTo(4);
    assertThat(transcriptsPerPiece.values()).containsOnly(1L);
    assertThat(cluster.provider().calls()).isEqualTo(transcriptsPerPiece.size() + 1);
    try (DurableLedger ledger = cluster.openLedger()) {
      assertThat(
              ledger.devices().stream()
                  .filter(device -> device.name().equals("alpha"))
                  .mapToLong(DeviceInfo::chargedMillis)
                  .sum())
          .isEqualTo(TestAudio.LECTURE_MILLIS);
    }
  }
}
