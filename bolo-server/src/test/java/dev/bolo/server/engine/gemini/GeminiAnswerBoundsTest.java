package dev.bolo.server.engine.gemini;

import static dev.bolo.server.engine.gemini.GeminiFixtures.API_KEY;
import static dev.bolo.server.engine.gemini.GeminiFixtures.client;
import static dev.bolo.server.engine.gemini.GeminiFixtures.engine;
import static dev.bolo.server.engine.gemini.GeminiFixtures.error;
import static dev.bolo.server.engine.gemini.GeminiFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.testing.BytesAudio;
import java.util.ArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** Gemini's answers are read up to the configured size, and its errors reach phones sanitised. */
class GeminiAnswerBoundsTest {

  @StartStop final MockWebServer server = new MockWebServer();

  private EngineResult transcribe(long maxAnswerBytes) {
    GeminiConfig config =
        GeminiConfig.of(
                API_KEY,
                AnswerLimit.applyTo(
                    client(),
                    maxAnswerBytes,
                    new AnswerBudget(maxAnswerBytes, AnswerBudget.WAIT, System::nanoTime)))
            .withBaseUrl(server.url("/").toString());
    return engine(config, new ArrayList<>()).transcribe(request(BytesAudio.wav(100, 1)));
  }

  @Test
  void anAnswerLargerThanTheLimitIsAFailureNamingTheLimit() {
    server.enqueue(
        new MockResponse.Builder()
            .code(200)
            .setHeader("Content-Type", "application/json")
            .chunkedBody(
                "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\""
                    + "a".repeat(300_000)
                    + "\"}]}}]}",
                4096)
            .build());

    assertThat(transcribe(100_000))
        .isEqualTo(new EngineResult.Failed("provider answer larger than 100000 bytes"));
  }

  @Test
  void googlesMessageLosesUrlsAddressesAndKeys() {
    server.enqueue(
        error(
            400,
            "INVALID_ARGUMENT",
            "Bad audio from 203.0.113.9 see https://console.cloud.google.com/x?key=" + API_KEY,
            ""));

    EngineResult result = transcribe(AnswerLimit.DEFAULT_MAX_BYTES);

    assertThat(result)
        .isEqualTo(
            new EngineResult.Rejected(
                "Gemini rejected the note (HTTP 400 INVALID_ARGUMENT: Bad audio from [address] see"
                    + " [url])"));
  }

  @Test
  void anUnreachableGeminiIsReportedWithoutItsHostOrAddress() throws Exception {
    String url = server.url("/").toString();
    server.close();
    GeminiConfig config = GeminiConfig.of(API_KEY, client()).withBaseUrl(url);

    EngineResult result =
        engine(config, new ArrayList<>()).transcribe(request(BytesAudio.wav(100, 2)));

    assertThat(result).isEqualTo(new EngineResult.Unavailable("cannot reach Gemini", null));
  }
}
