package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An {@code azure} engine behind a route speaks Azure OpenAI's shape, as its documentation gives
 * it: the deployment in the path, {@code api-version} in the query, the key in {@code api-key}; its
 * 429 with {@code Retry-After} and Azure's error body sends the note to the next target.
 */
class AzureRouteTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The fixture's provider stands in for Azure; the backup is OpenAI-shaped. */
  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  private Gateway start(FakeProvider backup) {
    return fixture.start(
        Map.of(
            "BOLO_ENGINES", "azure,backup",
            "BOLO_ENGINE_AZURE_KIND", "azure",
            "BOLO_ENGINE_AZURE_BASE_URL", fixture.provider().baseUrl().replaceAll("/v1/?$", ""),
            "BOLO_ENGINE_AZURE_API_KEY", "azure-key-0123",
            "BOLO_ENGINE_BACKUP_KIND", "openai",
            "BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl(),
            "BOLO_ROUTES", "whisper-1=azure/my-whisper,backup/whisper-1"));
  }

  @Test
  void aNoteGoesToTheDeploymentWithTheApiKeyHeaderAndEveryFormatIsRenderedFromIt()
      throws Exception {
    try (FakeProvider backup = new FakeProvider()) {
      Gateway gateway = start(backup);
      byte[] note = TestAudio.wav(900, 131);

      Gateway.Reply json =
          gateway.send(
              Gateway.openAiUploadRequest(
                  gateway.url("/v1/audio/transcriptions"), Gateway.TOKEN_A, note));
      Gateway.Reply srt =
          gateway.send(
              Gateway.openAiUploadRequest(
                  gateway.url("/v1/audio/transcriptions"),
                  Gateway.TOKEN_A,
                  note,
                  "response_format",
                  "srt"));

      assertThat(json.status()).as(json.body()).isEqualTo(200);
      assertThat(json.model()).isEqualTo("my-whisper");
      assertThat(srt.body()).startsWith("1\n00:00:00,000 --> 00:00:00,900\ntranscript of");
      RecordedRequest sent = fixture.provider().takeRequest();
      assertThat(sent.getUrl().encodedPath())
          .isEqualTo("/openai/deployments/my-whisper/audio/transcriptions");
      assertThat(sent.getUrl().queryParameter("api-version")).isEqualTo("2024-06-01");
      assertThat(sent.getHeaders().get("api-key")).isEqualTo("azure-key-0123");
      assertThat(sent.getHeaders().get("Authorization")).isNull();
      assertThat(fixture.provider().calls()).isEqualTo(1);
      assertThat(backup.calls()).isZero();
    }
  }

  @Test
  void azuresRateLimitSendsTheNoteToTheBackup() throws Exception {
    try (FakeProvider backup = new FakeProvider()) {
      Gateway gateway = start(backup);
      // Azure OpenAI's 429 body and header, as its documentation shows them.
      fixture
          .provider()
          .enqueue(
              new MockResponse.Builder()
                  .code(429)
                  .setHeader("Content-Type", "application/json")
                  .setHeader("Retry-After", "20")
                  .body(
                      "{\"error\":{\"code\":\"429\",\"message\":\"Requests to the Transcriptions"
                          + " Operation under Azure OpenAI API version 2024-06-01 have exceeded"
                          + " call rate limit of your current OpenAI S0 pricing tier. Please"
                          + " retry after 20 seconds.\"}}")
                  .build());

      Gateway.Reply first =
          gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(900, 132)));
      Gateway.Reply second =
          gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(900, 133)));

      assertThat(first.status()).as(first.body()).isEqualTo(200);
      assertThat(JSON.readTree(first.body()).path("engine").asText()).isEqualTo("backup");
      assertThat(JSON.readTree(second.body()).path("engine").asText()).isEqualTo("backup");
      assertThat(fixture.provider().calls()).as("no call within its Retry-After").isEqualTo(1);
    }
  }
}
