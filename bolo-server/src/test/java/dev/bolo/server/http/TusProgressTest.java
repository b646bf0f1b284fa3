package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.App;
import dev.bolo.server.ServerConfig;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.testing.AnsweringEngine;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A resumable upload whose note is still being recognised says how far the engine has got, as the
 * lookup does (PROTOCOL "Progress"): {@code GET /v1/uploads/{id}/transcription} answers 202 with
 * {@code seconds_done} and {@code seconds_total} from the engine's reports.
 */
class TusProgressTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType OCTETS = MediaType.get("application/offset+octet-stream");

  @Test
  void theTranscriptionOfARunningUploadSaysTheSecondsDoneOfTheSecondsInAll(@TempDir Path dataDir)
      throws Exception {
    CountDownLatch reported = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Map<String, String> env =
        Map.of(
            "BOLO_PORT", "0",
            "BOLO_ENGINE", "openai",
            "BOLO_OPENAI_BASE_URL", "http://127.0.0.1:9/v1",
            "BOLO_OPENAI_API_KEY", "sk-test",
            "BOLO_DATA_DIR", dataDir.toString(),
            "BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    byte[] note = TestAudio.wav(6_000, 11);
    OkHttpClient client = new OkHttpClient();
    try (App app =
        App.builder(ServerConfig.fromMap(env))
            .engineView(
                real ->
                    new AnsweringEngine(
                        real,
                        request -> {
                          request.progress().doneUpTo(2_500);
                          reported.countDown();
                          await(release);
                          return new EngineResult.Transcribed("all six seconds", null);
                        }))
            .build()
            .start()) {
      String base = "http://127.0.0.1:" + app.port();
      String location = createWithWholeNote(client, base, note);
      assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();

      Answer running = transcription(client, base, location, 0);

      assertThat(running.status()).as(running.body().toString()).isEqualTo(202);
      assertThat(running.body().get("status").asText()).isEqualTo("running");
      assertThat(running.body().get("seconds_done").asDouble()).isEqualTo(2.5);
      assertThat(running.body().get("seconds_total").asDouble()).isEqualTo(6.0);
      release.countDown();
      Answer finished = transcription(client, base, location, 30);
      assertThat(finished.status()).as(finished.body().toString()).isEqualTo(200);
      assertThat(finished.body().get("text").asText()).isEqualTo("all six seconds");
      assertThat(finished.body().has("seconds_done")).isFalse();
    } finally {
      release.countDown();
      client.dispatcher().executorService().shutdown();
    }
  }

  private record Answer(int status, JsonNode body) {}

  /** tus creation-with-upload of the whole note: its last byte starts the transcription. */
  private static String createWithWholeNote(OkHttpClient client, String base, byte[] note)
      throws Exception {
    Request creation =
        new Request.Builder()
            .url(base + "/v1/uploads")
            .header("Tus-Resumable", "1.0.0")
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .header("Upload-Length", Integer.toString(note.length))
            .post(RequestBody.create(note, OCTETS))
            .build();
    try (Response response = client.newCall(creation).execute()) {
      assertThat(response.code()).as(response.body().string()).isEqualTo(201);
      assertThat(response.header("Upload-Offset")).isEqualTo(Integer.toString(note.length));
      return Objects.requireNonNull(response.header("Location"));
    }
  }

  private static Answer transcription(OkHttpClient client, String base, String location, int wait)
      throws Exception {
    Request request =
        new Request.Builder()
            .url(base + location + "/transcription?wait=" + wait)
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .build();
    try (Response response = client.newCall(request).execute()) {
      return new Answer(response.code(), JSON.readTree(response.body().string()));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
