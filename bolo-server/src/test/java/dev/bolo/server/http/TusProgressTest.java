package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.HeldNoteGateway;
import dev.bolo.server.testing.TestAudio;
import java.nio.file.Path;
import java.util.Objects;
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
    byte[] note = TestAudio.wav(6_000, 11);
    OkHttpClient client = new OkHttpClient();
    try (HeldNoteGateway gateway = new HeldNoteGateway(dataDir, 2_500, "all six seconds")) {
      String location = createWithWholeNote(client, gateway.base(), note);
      assertThat(gateway.reported()).isTrue();

      Answer running = transcription(client, gateway.base(), location, 0);

      assertThat(running.status()).as(running.body().toString()).isEqualTo(202);
      assertThat(running.body().get("status").asText()).isEqualTo("running");
      assertThat(running.body().get("seconds_done").asDouble()).isEqualTo(2.5);
      assertThat(running.body().get("seconds_total").asDouble()).isEqualTo(6.0);
      gateway.release();
      Answer finished = transcription(client, gateway.base(), location, 30);
      assertThat(finished.status()).as(finished.body().toString()).isEqualTo(200);
      assertThat(finished.body().get("text").asText()).isEqualTo("all six seconds");
      assertThat(finished.body().has("seconds_done")).isFalse();
    } finally {
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
}
