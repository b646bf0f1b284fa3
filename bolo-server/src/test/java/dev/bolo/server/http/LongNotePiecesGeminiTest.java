package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.BurstListener;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Directories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/**
 * A note longer than Gemini is allowed to take goes to it in pieces as well (PROTOCOL.md rule 10).
 */
class LongNotePiecesGeminiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aNoteLongerThanGeminiIsAllowedIsSentInPiecesAndAnsweredWhole() throws Exception {
    BurstListener listener = new BurstListener();
    Path dataDir = Files.createTempDirectory("bolo-gemini-pieces-");
    try (MockWebServer gemini = new MockWebServer()) {
      gemini.setDispatcher(
          new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
              return listener.answerAsGemini(request);
            }
          });
      gemini.start();
      try (Gateway gateway =
          Gateway.withEnvironment(
              Map.of(
                  "BOLO_PORT", "0",
                  "BOLO_ENGINE", "gemini",
                  "BOLO_GEMINI_BASE_URL", gemini.url("/").toString(),
                  "BOLO_GEMINI_API_KEY", "AIza-test",
                  "BOLO_GEMINI_MAX_SECONDS", "20",
                  "BOLO_DATA_DIR", dataDir.toString(),
                  "BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A))) {

        Gateway.Reply reply =
            gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.lecture()));

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(JSON.readTree(reply.body()).path("text").asText())
            .isEqualTo(TestAudio.LECTURE_BURSTS);
        assertThat(listener.calls()).hasSizeGreaterThanOrEqualTo(4);
        assertThat(listener.calls())
            .allSatisfy(call -> assertThat(call.samples()).isLessThanOrEqualTo(20 * 16_000));
      }
    } finally {
      Directories.deleteTree(dataDir);
    }
  }
}
