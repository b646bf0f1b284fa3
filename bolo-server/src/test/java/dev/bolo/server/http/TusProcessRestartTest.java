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

  @Test
  void aNoteWhoseGatewayWasKilledWhileTranscribingItIsTranscribedAgainWhenItsAnswerIsAsked()
      throws Exception {
    Map<String, String> env = Gateway.openAiEnvironment(provider, dir.resolve("data"));
    byte[] note = TestAudio.wav(3000, 62);
    String sha256 = TusUploadTest.sha256(note);
    String location;
    provider.hold();
    try (GatewayProcess first = GatewayProcess.start(env, dir.resolve("first.log"))) {
      Request whole =
          tus(first.url("/v1/uploads"))
              .header("Upload-Length", Integer.toString(note.length))
              .header("Upload-Metadata", "sha256 " + base64(sha256))
              .post(RequestBody.create(note, OCTETS))
              .build();
      try (Response response = client.newCall(whole).execute()) {
        assertThat(response.code()).isEqualTo(201);
        assertThat(response.header("Upload-Offset")).isEqualTo(Integer.toString(note.length));
        location = Objects.requireNonNull(response.header("Location"));
      }
      // The note is at the provider when the gateway dies.
      Await.until(() -> provider.calls() == 1, () -> "provider calls: " + provider.calls());
      try (Response running = client.newCall(answer(first, location, 0)).execute()) {
        assertThat(running.code()).isEqualTo(202);
      }
      first.kill();
    }
    provider.release();
    // Bytes past the record in the spool file (a disk restored from a later copy): the record wins.
    try (java.util.stream.Stream<Path> files =
        java.nio.file.Files.walk(dir.resolve("data").resolve("spool"))) {
      for (Path part : files.filter(f -> f.toString().endsWith(".part")).toList()) {
        java.nio.file.Files.write(part, new byte[3000], java.nio.file.StandardOpenOption.APPEND);
      }
    }

    try (GatewayProcess second = GatewayProcess.start(env, dir.resolve("second.log"))) {
      // Two asking at once: the work runs again once, and both get its answer.
      java.util.concurrent.CompletableFuture<String> other =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try (Response r = client.newCall(answer(second, location, 30)).execute()) {
                  return r.code() + " " + r.body().string();
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      try (Response response = client.newCall(answer(second, location, 30)).execute()) {
        String body = response.body().string();
        assertThat(response.code()).as(body).isEqualTo(200);
        JsonNode json = JSON.readTree(body);
        assertThat(json.get("audio_sha256").asText()).isEqualTo(sha256);
        assertThat(json.get("duration_ms").asLong()).isEqualTo(3000);
        assertThat(json.get("text").asText())
            .isEqualTo("transcript of " + providerBytes() + " bytes");
      }
      assertThat(other.get(60, java.util.concurrent.TimeUnit.SECONDS)).startsWith("200 ");
      // Asked again later: the stored answer, without another run.
      try (Response again = client.newCall(answer(second, location, 0)).execute()) {
        assertThat(again.code()).isEqualTo(200);
      }
      assertThat(provider.calls()).isEqualTo(2);
      second.terminate();
      assertThat(second.awaitExit(Duration.ofSeconds(60))).isZero();
    }
    // The killed run was never charged; the run again was, once.
    try (LedgerProbe ledger = LedgerProbe.open(dir.resolve("data"))) {
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(3000);
    }
    try (java.util.stream.Stream<Path> files =
        java.nio.file.Files.walk(dir.resolve("data").resolve("spool"))) {
      assertThat(files.filter(java.nio.file.Files::isRegularFile).toList())
          .as("the note's spool file, deleted once transcribed")
          .isEmpty();
    }
  }

  /** The size of the multipart request the gateway sent for the last call. */
  private long providerBytes() throws InterruptedException {
    long size = 0;
    for (int i = 0; i < 2; i++) {
      size = provider.takeRequest().getBodySize();
    }
    return size;
  }

  private static Request answer(GatewayProcess gateway, String location, int wait) {
    return new Request.Builder()
        .url(gateway.url(location + "/transcription?wait=" + wait))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .build();
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
