package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.TestAudio;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tus upload outlives its gateway: a real gateway process killed with SIGKILL in the middle of an
 * upload, and a new one started on the same data directory, which resumes it from the stored offset
 * with the hash carried over.
 */
class TusProcessRestartTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType OCTETS = MediaType.get("application/offset+octet-stream");

  @TempDir Path dir;
  FakeProvider provider;
  final OkHttpClient client =
      new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(60)).build();

  @BeforeEach
  void start() throws Exception {
    provider = new FakeProvider();
  }

  @AfterEach
  void stop() {
    provider.close();
    client.dispatcher().executorService().shutdown();
  }

  @Test
  void anUploadResumesOnAGatewayStartedAfterTheFirstWasKilled() throws Exception {
    Map<String, String> env = Gateway.openAiEnvironment(provider, dir.resolve("data"));
    byte[] note = TestAudio.wav(4000, 61);
    String sha256 = TusUploadTest.sha256(note);
    String location;
    try (GatewayProcess first = GatewayProcess.start(env, dir.resolve("first.log"))) {
      Request create =
          tus(first.url("/v1/uploads"))
              .header("Upload-Length", Integer.toString(note.length))
              .header("Upload-Metadata", "sha256 " + base64(sha256))
              .post(RequestBody.create(Arrays.copyOf(note, 50_000), OCTETS))
              .build();
      try (Response response = client.newCall(create).execute()) {
        assertThat(response.code()).isEqualTo(201);
        assertThat(response.header("Upload-Offset")).isEqualTo("50000");
        location = Objects.requireNonNull(response.header("Location"));
      }
      first.kill();
    }

    try (GatewayProcess second = GatewayProcess.start(env, dir.resolve("second.log"))) {
      try (Response head = client.newCall(tus(second.url(location)).head().build()).execute()) {
        assertThat(head.code()).isEqualTo(200);
        assertThat(head.header("Upload-Offset")).isEqualTo("50000");
      }
      Request rest =
          tus(second.url(location))
              .header("Upload-Offset", "50000")
              .patch(RequestBody.create(Arrays.copyOfRange(note, 50_000, note.length), OCTETS))
              .build();
      try (Response response = client.newCall(rest).execute()) {
        assertThat(response.code()).isEqualTo(204);
      }
      Request answer =
          new Request.Builder()
              .url(second.url(location + "/transcription?wait=30"))
              .header("Authorization", "Bearer " + Gateway.TOKEN_A)
              .build();
      try (Response response = client.newCall(answer).execute()) {
        String body = response.body().string();
        assertThat(response.code()).as(body).isEqualTo(200);
        JsonNode json = JSON.readTree(body);
        // The declared hash held across the restart: the note is whole and unchanged.
        assertThat(json.get("audio_sha256").asText()).isEqualTo(sha256);
        assertThat(json.get("duration_ms").asLong()).isEqualTo(4000);
      }
    }
    assertThat(provider.calls()).isEqualTo(1);
  }

  private static Request.Builder tus(String url) {
    return new Request.Builder()
        .url(url)
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .header("Tus-Resumable", "1.0.0");
  }

  private static String base64(String value) {
    return java.util.Base64.getEncoder()
        .encodeToString(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
