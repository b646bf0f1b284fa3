package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.BurstListener;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Directories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A route's target has its own engine's limits, as the same engine alone has them: the longest note
 * the offline engine takes, and each provider's request limits with the operator's replacements for
 * that provider only (PROTOCOL.md, "Several engines").
 */
class RouteTargetLimitsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dataDir = newDataDir();

  private static Path newDataDir() {
    try {
      return Files.createTempDirectory("bolo-route-limits-");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @AfterEach
  void deleteDataDir() throws Exception {
    Directories.deleteTree(dataDir);
  }

  private Gateway start(Map<String, String> variables) {
    Map<String, String> env = new HashMap<>(variables);
    env.put("BOLO_PORT", "0");
    env.put("BOLO_DATA_DIR", dataDir.toString());
    env.put("BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    return Gateway.withEnvironment(env);
  }

  @Test
  void aRouteToTheOfflineEngineRefusesANoteLongerThanItTakesBeforeAnyWorkAsItDoesAlone()
      throws Exception {
    try (Gateway gateway =
        start(
            Map.of(
                "BOLO_ENGINES", "local",
                "BOLO_ENGINE_LOCAL_KIND", "offline",
                "BOLO_ROUTES", "whisper-1=local/moonshine-tiny-en",
                "BOLO_OFFLINE_MAX_SECONDS", "60"))) {
      // 200 s at 1 kHz: small to send, long to recognise.
      byte[] note = TestAudio.wav(200_000, 3, 1_000, 1);

      Gateway.Reply reply = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));

      assertThat(reply.status()).as(reply.body()).isEqualTo(413);
      assertThat(reply.body())
          .contains("\"code\":\"audio_too_long\"")
          .contains("200 s long")
          .contains("the offline engine takes notes up to 60 s (BOLO_OFFLINE_MAX_SECONDS)");
      // Refused from its measured length: no engine was asked.
      assertThat(gateway.app().metrics().find("bolo_upstream_calls_total").counters()).isEmpty();
    }
  }

  @Test
  void aRoutesGeminiTargetKeepsGeminisLimitsWhateverOpenAisAreReplacedWith() throws Exception {
    BurstListener listener = new BurstListener();
    try (MockWebServer gemini = geminiAnswering(listener);
        Gateway gateway =
            start(
                Map.of(
                    "BOLO_ENGINES", "google",
                    "BOLO_ENGINE_GOOGLE_KIND", "gemini",
                    "BOLO_ENGINE_GOOGLE_BASE_URL", gemini.url("/").toString(),
                    "BOLO_ENGINE_GOOGLE_API_KEY", "AIza-test",
                    "BOLO_ROUTES", "gemini-2.5-flash=google/gemini-2.5-flash",
                    "BOLO_OPENAI_MAX_SECONDS", "20"))) {

      Gateway.Reply reply =
          gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.lecture()));

      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      assertThat(JSON.readTree(reply.body()).path("text").asText())
          .isEqualTo(TestAudio.LECTURE_BURSTS);
      // 68 s is well within Gemini's 9.5 hours: one call, the note whole.
      assertThat(listener.calls()).hasSize(1);
    }
  }

  @Test
  void aRoutesGeminiTargetIsGivenGeminisReplacedLimits() throws Exception {
    BurstListener listener = new BurstListener();
    try (MockWebServer gemini = geminiAnswering(listener);
        Gateway gateway =
            start(
                Map.of(
                    "BOLO_ENGINES", "google",
                    "BOLO_ENGINE_GOOGLE_KIND", "gemini",
                    "BOLO_ENGINE_GOOGLE_BASE_URL", gemini.url("/").toString(),
                    "BOLO_ENGINE_GOOGLE_API_KEY", "AIza-test",
                    "BOLO_ROUTES", "gemini-2.5-flash=google/gemini-2.5-flash",
                    "BOLO_GEMINI_MAX_SECONDS", "20"))) {

      Gateway.Reply reply =
          gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.lecture()));

      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      assertThat(JSON.readTree(reply.body()).path("text").asText())
          .isEqualTo(TestAudio.LECTURE_BURSTS);
      assertThat(listener.calls()).hasSizeGreaterThanOrEqualTo(4);
      assertThat(listener.calls())
          .allSatisfy(call -> assertThat(call.samples()).isLessThanOrEqualTo(20 * 16_000));
    }
  }

  private static MockWebServer geminiAnswering(BurstListener listener) throws Exception {
    MockWebServer gemini = new MockWebServer();
    gemini.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            return listener.answerAsGemini(request);
          }
        });
    gemini.start();
    return gemini;
  }
}
