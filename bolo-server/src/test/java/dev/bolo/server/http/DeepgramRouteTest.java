package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code deepgram} engine behind a route speaks Deepgram's pre-recorded API as its documentation
 * gives it: the raw note to {@code /v1/listen}, {@code Authorization: Token …}, the model and
 * language in the query; its utterances answer every response format from one call, and its errors
 * ({@code err_code}, {@code err_msg}) mean what their statuses mean.
 */
class DeepgramRouteTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Deepgram's answer to a 2.5 s note of two utterances, trimmed to the fields Bolo reads. */
  private static final String ANSWER =
      """
      {"metadata":{"request_id":"r-1","duration":2.5,"channels":1},
       "results":{"channels":[{"alternatives":[{"transcript":"Call me. At four.","confidence":0.98,
         "words":[{"word":"call","start":0.1,"end":0.4,"punctuated_word":"Call"},
                  {"word":"me","start":0.4,"end":0.7,"punctuated_word":"me."},
                  {"word":"at","start":1.5,"end":1.7,"punctuated_word":"At"},
                  {"word":"four","start":1.7,"end":2.2,"punctuated_word":"four."}]}]}],
        "utterances":[{"start":0.1,"end":0.7,"transcript":"Call me."},
                      {"start":1.5,"end":2.2,"transcript":"At four."}]}}
      """;

  /** The fixture's provider stands in for Deepgram; the backup is OpenAI-shaped. */
  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  private Gateway start(FakeProvider backup) {
    return fixture.start(
        Map.of(
            "BOLO_ENGINES", "deepgram,backup",
            "BOLO_ENGINE_DEEPGRAM_KIND", "deepgram",
            "BOLO_ENGINE_DEEPGRAM_BASE_URL", fixture.provider().baseUrl().replaceAll("/v1/?$", ""),
            "BOLO_ENGINE_DEEPGRAM_API_KEY", "dg-key-0123",
            "BOLO_ENGINE_BACKUP_KIND", "openai",
            "BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl(),
            "BOLO_ROUTES", "nova-3=deepgram/nova-3,backup/whisper-1"));
  }

  private static Request openAi(Gateway gateway, byte[] note, String... fields) {
    return Gateway.openAiUploadRequest(
        gateway.url("/v1/audio/transcriptions"), Gateway.TOKEN_A, note, fields);
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse.Builder()
        .code(code)
        .setHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }

  @Test
  void everyFormatComesFromOneListenCallWithTheTokenAndTheModel() throws Exception {
    try (FakeProvider backup = new FakeProvider()) {
      Gateway gateway = start(backup);
      fixture.provider().enqueue(json(200, ANSWER));
      byte[] note = TestAudio.wav(2500, 141);

      Gateway.Reply json = gateway.send(openAi(gateway, note, "language", "en"));
      Gateway.Reply srt =
          gateway.send(openAi(gateway, note, "language", "en", "response_format", "srt"));
      Gateway.Reply verbose =
          gateway.send(
              openAi(
                  gateway,
                  note,
                  "language",
                  "en",
                  "response_format",
                  "verbose_json",
                  "timestamp_granularities[]",
                  "segment"));

      assertThat(json.status()).as(json.body()).isEqualTo(200);
      assertThat(JSON.readTree(json.body()).path("text").asText()).isEqualTo("Call me. At four.");
      assertThat(json.model()).isEqualTo("nova-3");
      assertThat(srt.body())
          .isEqualTo(
              "1\n00:00:00,100 --> 00:00:00,700\nCall me.\n\n"
                  + "2\n00:00:01,500 --> 00:00:02,200\nAt four.\n\n");
      JsonNode segments = JSON.readTree(verbose.body()).path("segments");
      assertThat(segments).hasSize(2);
      assertThat(JSON.readTree(verbose.body()).path("duration").asDouble()).isEqualTo(2.5);
      assertThat(fixture.provider().calls()).isEqualTo(1);
      RecordedRequest sent = fixture.provider().takeRequest();
      assertThat(sent.getUrl().encodedPath()).isEqualTo("/v1/listen");
      assertThat(sent.getUrl().queryParameter("model")).isEqualTo("nova-3");
      assertThat(sent.getUrl().queryParameter("language")).isEqualTo("en");
      assertThat(sent.getUrl().queryParameter("utterances")).isEqualTo("true");
      assertThat(sent.getHeaders().get("Authorization")).isEqualTo("Token dg-key-0123");
      assertThat(sent.getHeaders().get("Content-Type")).startsWith("audio/");
      assertThat(java.util.Objects.requireNonNull(sent.getBody()).size())
          .as("the raw note")
          .isEqualTo(note.length);
      assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(2500);
    }
  }

  @Test
  void deepgramsRateLimitFailsOverAndItsRefusalOfTheAudioDoesNot() throws Exception {
    try (FakeProvider backup = new FakeProvider()) {
      Gateway gateway = start(backup);
      fixture
          .provider()
          .enqueue(
              json(
                  429,
                  "{\"err_code\":\"TOO_MANY_REQUESTS\",\"err_msg\":\"Too many requests. Please"
                      + " try again later\",\"request_id\":\"r-2\"}"))
          .enqueue(
              json(
                  400,
                  "{\"err_code\":\"Bad Request\",\"err_msg\":\"Bad Request: failed to process"
                      + " audio: corrupt or unsupported data\",\"request_id\":\"r-3\"}"));

      Gateway.Reply limited = gateway.send(openAi(gateway, TestAudio.wav(900, 142)));
      Gateway.Reply refused = gateway.send(openAi(gateway, TestAudio.wav(900, 143)));

      assertThat(limited.status()).as(limited.body()).isEqualTo(200);
      assertThat(limited.model()).isEqualTo("whisper-1");
      assertThat(refused.status()).as(refused.body()).isEqualTo(422);
      assertThat(JSON.readTree(refused.body()).path("error").path("message").asText())
          .contains("corrupt or unsupported data");
      assertThat(backup.calls()).isEqualTo(1);
    }
  }
}
