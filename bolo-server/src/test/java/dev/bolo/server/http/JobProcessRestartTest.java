package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job outlives its gateway: a real gateway process accepts a job (202), sends its note to the
 * provider and is killed with SIGKILL before the provider answers; a new one started on the same
 * data directory runs the job again from the note in the ledger's database, and the job succeeds,
 * answered by one call and charged once.
 */
class JobProcessRestartTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final FakeProvider provider = newProvider();
  final OkHttpClient client =
      new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(60)).build();

  @AfterEach
  void stop() {
    provider.close();
    client.dispatcher().executorService().shutdown();
  }

  @Test
  void aJobWhoseGatewayWasKilledBeforeTheEngineAnsweredSucceedsAfterTheRestart() throws Exception {
    Map<String, String> env = Gateway.openAiEnvironment(provider, dir.resolve("data"));
    byte[] note = TestAudio.wav(3000, 64);
    String id;
    provider.hold();
    try (GatewayProcess first = GatewayProcess.start(env, dir.resolve("first.log"))) {
      Request submit =
          new Request.Builder()
              .url(first.url("/v1/jobs"))
              .header("Authorization", "Bearer " + Gateway.TOKEN_A)
              .post(
                  new MultipartBody.Builder()
                      .setType(MultipartBody.FORM)
                      .addFormDataPart(
                          "audio", "note.wav", RequestBody.create(note, MediaType.get("audio/wav")))
                      .build())
              .build();
      try (Response response = client.newCall(submit).execute()) {
        String body = response.body().string();
        assertThat(response.code()).as(body).isEqualTo(202);
        id = JSON.readTree(body).get("id").asText();
      }
      // The note is at the provider when the gateway dies.
      Await.until(() -> provider.calls() == 1, () -> "provider calls: " + provider.calls());
      first.kill();
    }
    provider.release();

    try (GatewayProcess second = GatewayProcess.start(env, dir.resolve("second.log"))) {
      JsonNode[] job = new JsonNode[1];
      Await.until(
          Duration.ofSeconds(60),
          () -> {
            job[0] = get(second, id);
            return job[0].path("status").asText().equals("succeeded");
          },
          () -> "job " + job[0]);
      assertThat(job[0].at("/result/audio_sha256").asText())
          .isEqualTo(job[0].at("/audio_sha256").asText());
      // The killed gateway's call answered nobody; the restarted one's answered the job.
      assertThat(provider.calls()).isEqualTo(2);
      second.terminate();
      assertThat(second.awaitExit(Duration.ofSeconds(60))).isZero();
    }
    try (LedgerProbe ledger = LedgerProbe.open(dir.resolve("data"))) {
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(3000);
    }
  }

  private JsonNode get(GatewayProcess gateway, String id) {
    Request request =
        new Request.Builder()
            .url(gateway.url("/v1/jobs/" + id))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .build();
    try (Response response = client.newCall(request).execute()) {
      return JSON.readTree(response.body().string());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static FakeProvider newProvider() {
    try {
      return new FakeProvider();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
