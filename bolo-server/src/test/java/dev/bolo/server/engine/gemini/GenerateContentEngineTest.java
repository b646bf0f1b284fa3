package dev.bolo.server.engine.gemini;

import static dev.bolo.server.engine.gemini.GeminiFixtures.API_KEY;
import static dev.bolo.server.engine.gemini.GeminiFixtures.bodyJson;
import static dev.bolo.server.engine.gemini.GeminiFixtures.candidate;
import static dev.bolo.server.engine.gemini.GeminiFixtures.engine;
import static dev.bolo.server.engine.gemini.GeminiFixtures.json;
import static dev.bolo.server.engine.gemini.GeminiFixtures.request;
import static dev.bolo.server.engine.gemini.GeminiFixtures.settings;
import static dev.bolo.server.engine.gemini.GeminiFixtures.take;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bolo.audio.AudioContainer;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.testing.BytesAudio;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GenerateContentEngineTest {

  @StartStop final MockWebServer server = new MockWebServer();

  @Test
  void transcribesANoteSentInlineAsTheDocumentedRequest() throws Exception {
    BytesAudio audio = BytesAudio.wav(4_000, 7);
    server.enqueue(candidate("Hallo Welt, wie geht's?\n", "STOP"));

    EngineResult result =
        engine(server)
            .transcribe(
                request(
                    audio,
                    settings(null, "DE", "Namen: Jürgen, Bolo", "text"),
                    Duration.ofSeconds(10)));

    assertThat(result)
        .isEqualTo(new EngineResult.Transcribed(Transcript.plain("Hallo Welt, wie geht's?")));
    RecordedRequest sent = take(server);
    assertThat(sent.getMethod()).isEqualTo("POST");
    assertThat(sent.getUrl().encodedPath())
        .isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
    assertThat(sent.getUrl().query()).isNull();
    assertThat(sent.getHeaders().get("x-goog-api-key")).isEqualTo(API_KEY);
    assertThat(sent.getHeaders().get("Content-Type")).startsWith("application/json");
    JsonNode body = bodyJson(sent);
    JsonNode parts = body.path("contents").path(0).path("parts");
    assertThat(body.path("contents").path(0).path("role").asText()).isEqualTo("user");
    JsonNode inline = parts.path(0).path("inline_data");
    assertThat(inline.path("mime_type").asText()).isEqualTo("audio/wav");
    assertThat(Base64.getDecoder().decode(inline.path("data").asText())).isEqualTo(audio.bytes());
    String instruction = parts.path(1).path("text").asText();
    assertThat(instruction)
        .contains("verbatim")
        .contains("\"de\"")
        .contains("do not translate")
        .contains("transcript only")
        .contains("Namen: Jürgen, Bolo");
    assertThat(body.path("generationConfig").path("temperature").decimalValue())
        .isEqualByComparingTo("0.3");
  }

  @Test
  void withoutALanguageGeminiIsAskedToDetectItAndNoContextIsSent() throws Exception {
    server.enqueue(candidate("hello", "STOP"));

    engine(server).transcribe(request(BytesAudio.wav(100, 1)));

    String instruction = bodyJson(take(server)).at("/contents/0/parts/1/text").asText();
    assertThat(instruction).contains("Detect the language").doesNotContain("<context>");
  }

  @Test
  void aTranslationAsksForEnglishTextWhateverTheLanguageSpoken() throws Exception {
    server.enqueue(candidate("Hello world", "STOP"));

    EngineResult result =
        engine(server)
            .transcribe(
                GeminiFixtures.request(
                    BytesAudio.wav(100, 1),
                    settings(null, null, "Namen: Jürgen", null).withTask(Task.TRANSLATE),
                    Duration.ofSeconds(10)));

    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    String instruction = bodyJson(take(server)).at("/contents/0/parts/1/text").asText();
    assertThat(instruction)
        .startsWith("Translate the speech in this audio recording into English")
        .doesNotContain("do not translate")
        .contains("<context>\nNamen: Jürgen\n</context>");
  }

  @ParameterizedTest
  @CsvSource({
    "WAV, audio/wav",
    "MP3, audio/mp3",
    "OGG, audio/ogg",
    "FLAC, audio/flac",
    "AAC, audio/aac",
    "MP4, audio/mp4",
    "WEBM, audio/webm"
  })
  void sendsGeminisDocumentedMimeTypeOrElseTheRealOne(AudioContainer container, String mimeType)
      throws Exception {
    server.enqueue(candidate("ok", "STOP"));

    engine(server).transcribe(request(BytesAudio.of(new byte[64], container)));

    assertThat(bodyJson(take(server)).at("/contents/0/parts/0/inline_data/mime_type").asText())
        .isEqualTo(mimeType);
  }

  @Test
  void aModelTheClientNamesIsCalledEvenWithGooglesResourcePrefix() throws Exception {
    server.enqueue(candidate("ok", "STOP"));

    engine(server)
        .transcribe(
            request(
                BytesAudio.wav(100, 1),
                settings("models/gemini-2.5-pro", null, null, null),
                Duration.ofSeconds(10)));

    assertThat(take(server).getUrl().encodedPath())
        .isEqualTo("/v1beta/models/gemini-2.5-pro:generateContent");
  }

  @ParameterizedTest
  @ValueSource(strings = {"../files", "gemini 2.5", "a/b", "x?key=1"})
  void aModelNameThatIsNotAnIdIsRejectedWithoutCallingGemini(String model) {
    EngineResult result =
        engine(server)
            .transcribe(
                request(
                    BytesAudio.wav(100, 1),
                    settings(model, null, null, null),
                    Duration.ofSeconds(10)));

    assertThat(result).isInstanceOf(EngineResult.Rejected.class);
    assertThat(((EngineResult.Rejected) result).message()).contains(model);
    assertThat(server.getRequestCount()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"verbose_json", "srt", "vtt"})
  void formatsWithTimingsAreRejectedWithoutCallingGemini(String format) {
    EngineResult result =
        engine(server)
            .transcribe(
                request(
                    BytesAudio.wav(100, 1),
                    settings(null, null, null, format),
                    Duration.ofSeconds(10)));

    assertThat(result)
        .isEqualTo(
            new EngineResult.Rejected(
                "the gemini engine answers response_format json or text only, not " + format));
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void thoughtSummariesAreLeftOutAndTextPartsJoined() {
    server.enqueue(
        json(
            200,
            """
            {"candidates": [{"content": {"role": "model", "parts": [
               {"text": "The user wants a transcript.", "thought": true},
               {"text": "first half, "}, {"text": "second half"}]},
             "finishReason": "STOP"}]}
            """));

    assertThat(engine(server).transcribe(request(BytesAudio.wav(100, 1))))
        .isEqualTo(new EngineResult.Transcribed(Transcript.plain("first half, second half")));
  }

  @Test
  void aNoteWithoutSpeechIsAnEmptyTranscript() {
    server.enqueue(
        json(
            200,
            """
            {"candidates": [{"content": {"role": "model"}, "finishReason": "STOP"}]}
            """));

    assertThat(engine(server).transcribe(request(BytesAudio.wav(100, 1))))
        .isEqualTo(new EngineResult.Transcribed(Transcript.plain("")));
  }

  @Test
  @Timeout(10)
  void aStalledAnswerTimesOutAfterTheRequestsTimeout() {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    // A real ticker here: the call timeout is OkHttp's own clock, the deadline only sizes it.
    SpeechEngine engine =
        GeminiEngines.create(GeminiFixtures.config(server), System::nanoTime, Thread::sleep);

    EngineResult result =
        engine.transcribe(
            request(
                BytesAudio.wav(100, 1), settings(null, null, null, null), Duration.ofMillis(300)));

    assertThat(result).isInstanceOf(EngineResult.TimedOut.class);
    assertThat(((EngineResult.TimedOut) result).message()).contains("generateContent");
  }

  @Test
  void anUnreachableGeminiIsUnavailable() {
    GeminiConfig config = GeminiFixtures.config(server);
    server.close();

    EngineResult result =
        GeminiEngines.create(config, System::nanoTime, Thread::sleep)
            .transcribe(request(BytesAudio.wav(100, 1)));

    assertThat(result).isInstanceOf(EngineResult.Unavailable.class);
  }

  @Test
  void theEngineIsNamedGeminiWithTheConfiguredDefaultModel() {
    SpeechEngine engine =
        GeminiEngines.create(
            GeminiConfig.of(API_KEY, new OkHttpClient()).withModel("gemini-2.5-flash-lite"),
            System::nanoTime,
            Thread::sleep);

    assertThat(engine.name()).isEqualTo("gemini");
    assertThat(engine.defaultModel()).isEqualTo("gemini-2.5-flash-lite");
  }

  @Test
  void aBaseUrlWithAPathPrefixKeepsIt() throws Exception {
    server.enqueue(candidate("ok", "STOP"));
    GeminiConfig config =
        GeminiFixtures.config(server).withBaseUrl(server.url("/gemini-proxy").toString());

    engine(config, new ArrayList<>()).transcribe(request(BytesAudio.wav(100, 1)));

    assertThat(take(server).getUrl().encodedPath())
        .isEqualTo("/gemini-proxy/v1beta/models/gemini-2.5-flash:generateContent");
  }

  @Test
  void anAbsentTemperatureIsSentAsZero() throws Exception {
    server.enqueue(candidate("ok", "STOP"));
    Settings settings =
        Settings.canonical(
            "gemini", GeminiConfig.DEFAULT_MODEL, null, null, null, null, null, List.of());

    engine(server).transcribe(request(BytesAudio.wav(100, 1), settings, Duration.ofSeconds(10)));

    assertThat(bodyJson(take(server)).at("/generationConfig/temperature").decimalValue())
        .isEqualByComparingTo("0");
  }
}
