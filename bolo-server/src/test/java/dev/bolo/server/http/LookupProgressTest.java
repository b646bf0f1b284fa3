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
import dev.bolo.testkit.Await;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lookup that finds its note still being recognised says how far the engine has got (PROTOCOL
 * "Progress"): the 202 carries {@code seconds_done} and {@code seconds_total} from the engine's
 * reports, so a phone waits on instead of counting a failed attempt.
 */
class LookupProgressTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aLookupOfRunningWorkSaysTheSecondsDoneOfTheSecondsInAll(@TempDir Path dataDir)
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
    byte[] note = TestAudio.wav(4_000, 9);
    OkHttpClient client = new OkHttpClient();
    try (App app =
        App.builder(ServerConfig.fromMap(env))
            .engineView(
                real ->
                    new AnsweringEngine(
                        real,
                        request -> {
                          request.progress().doneUpTo(1_500);
                          reported.countDown();
                          await(release);
                          return new EngineResult.Transcribed("all four seconds", null);
                        }))
            .build()
            .start()) {
      String base = "http://127.0.0.1:" + app.port();
      CompletableFuture<Integer> upload =
          CompletableFuture.supplyAsync(
              () -> {
                try (Response response =
                    client
                        .newCall(
                            Gateway.nativeUploadRequest(
                                base + "/v1/transcriptions", Gateway.TOKEN_A, note))
                        .execute()) {
                  return response.code();
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();

      JsonNode running = lookup(client, base, sha256(note), 202);

      assertThat(running.get("status").asText()).isEqualTo("running");
      assertThat(running.get("seconds_done").asDouble()).isEqualTo(1.5);
      assertThat(running.get("seconds_total").asDouble()).isEqualTo(4.0);
      release.countDown();
      assertThat(upload.get(10, TimeUnit.SECONDS)).isEqualTo(200);
      // Finished work is replayed; its progress is forgotten with it.
      String sha = sha256(note);
      Await.until(() -> lookupStatus(client, base, sha) == 200, () -> "the finished note is found");
    } finally {
      release.countDown();
      client.dispatcher().executorService().shutdown();
    }
  }

  private static JsonNode lookup(OkHttpClient client, String base, String sha, int status)
      throws Exception {
    try (Response response = client.newCall(lookupRequest(base, sha)).execute()) {
      assertThat(response.code()).isEqualTo(status);
      return JSON.readTree(response.body().string());
    }
  }

  private static int lookupStatus(OkHttpClient client, String base, String sha) {
    try (Response response = client.newCall(lookupRequest(base, sha)).execute()) {
      return response.code();
    } catch (java.io.IOException e) {
      return -1;
    }
  }

  private static Request lookupRequest(String base, String sha) {
    return new Request.Builder()
        .url(base + "/v1/transcriptions/" + sha + "?wait=0")
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .build();
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
