package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.HeldNoteGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
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
    byte[] note = TestAudio.wav(4_000, 9);
    OkHttpClient client = new OkHttpClient();
    try (HeldNoteGateway gateway = new HeldNoteGateway(dataDir, 1_500, "all four seconds")) {
      String base = gateway.base();
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
      assertThat(gateway.reported()).isTrue();

      JsonNode running = lookup(client, base, sha256(note), 202);

      assertThat(running.get("status").asText()).isEqualTo("running");
      assertThat(running.get("seconds_done").asDouble()).isEqualTo(1.5);
      assertThat(running.get("seconds_total").asDouble()).isEqualTo(4.0);
      gateway.release();
      assertThat(upload.get(10, TimeUnit.SECONDS)).isEqualTo(200);
      // Finished work is replayed; its progress is forgotten with it.
      String sha = sha256(note);
      Await.until(() -> lookupStatus(client, base, sha) == 200, () -> "the finished note is found");
    } finally {
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
}
