package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.dedup.EmbeddedRedis;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import okhttp3.HttpUrl;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/transcriptions/{sha256}} (PROTOCOL.md "Resends without the audio") against a real
 * gateway and a fake provider, with the in-memory store and with Redis.
 */
class LookupTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Nested
  class WithTheInMemoryStore extends Contract {
    @Override
    Map<String, String> storeEnvironment() {
      return Map.of();
    }
  }

  @Nested
  class WithRedis extends Contract {
    private @Nullable EmbeddedRedis redis;

    @Override
    Map<String, String> storeEnvironment() {
      redis = EmbeddedRedis.start();
      return Map.of("BOLO_STORE", "redis", "BOLO_REDIS_URL", redis.url());
    }

    @AfterEach
    void stopRedis() {
      if (redis != null) {
        redis.close();
      }
    }
  }

  abstract static class Contract {

    @RegisterExtension
    final OpenAiGateway fixture =
        OpenAiGateway.onDemand(Map.of("BOLO_OPENAI_MODELS", "whisper-1,whisper-large"));

    FakeProvider provider;
    Gateway gateway;
    LedgerProbe ledger;
    final ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor();

    abstract Map<String, String> storeEnvironment();

    @BeforeEach
    void start() {
      provider = fixture.provider();
      gateway = fixture.start(storeEnvironment());
      ledger = fixture.ledger();
    }

    @AfterEach
    void stopPhones() {
      // The fixture releases held work, then closes the gateway and its provider.
      phones.shutdownNow();
    }

    @Test
    void finishedWorkIsAnsweredWithTheUploadsReplayBodyWithoutAProviderCallOrACharge()
        throws Exception {
      byte[] note = TestAudio.wav(1200, 11);
      Gateway.Reply first = post(note, "r-1", "language", "en");
      assertThat(first.status()).as(first.body()).isEqualTo(200);
      Gateway.Reply resent = post(note, "r-2", "language", "en");
      long charged = ledger.chargedMillis("alpha");
      assertThat(charged).isEqualTo(JSON.readTree(first.body()).get("duration_ms").asLong());

      Gateway.Reply found = lookup(Gateway.TOKEN_A, sha256(note), "r-2", "language", "EN");

      assertThat(found.status()).as(found.body()).isEqualTo(200);
      assertThat(found.replayed()).isEqualTo("true");
      assertThat(found.model()).isEqualTo("whisper-1");
      assertThat(found.body()).isEqualTo(resent.body());
      assertThat(provider.calls()).isEqualTo(1);
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(charged);
      DeviceUsage usage = ledger.usage("alpha");
      assertThat(usage.replays()).as("the upload's replay and the lookup's").isEqualTo(2);
      assertThat(usage.savedMillis()).isEqualTo(2 * charged);
      assertThat(usage.chargedMillis()).isEqualTo(charged);
      // Counted as a stored result served, with the same labels as an upload's replay.
      assertThat(gateway.app().metrics().scrape())
          .contains("bolo_lookups_total{found=\"finished\"} 1.0")
          .contains("bolo_transcriptions_total{outcome=\"ok\",replay=\"cached\"} 2.0");
    }

    @Test
    void theHashIsMatchedInAnyCaseAndAbsentSettingsEqualTheirDefaults() throws Exception {
      byte[] note = TestAudio.wav(800, 12);
      assertThat(post(note, "r-1").status()).isEqualTo(200);

      Gateway.Reply found =
          lookup(
              Gateway.TOKEN_A,
              sha256(note).toUpperCase(Locale.ROOT),
              "r-2",
              "model",
              "whisper-1",
              "temperature",
              "0.00",
              "response_format",
              "json");

      assertThat(found.status()).as(found.body()).isEqualTo(200);
      assertThat(JSON.readTree(found.body()).get("audio_sha256").asText()).isEqualTo(sha256(note));
    }

    @Test
    void anotherDeviceAskingForTheSameHashIsToldToUpload() throws Exception {
      byte[] note = TestAudio.wav(800, 13);
      assertThat(post(note, "r-1").status()).isEqualTo(200);

      Gateway.Reply bravo = lookup(Gateway.TOKEN_B, sha256(note), "r-2");

      assertThat(bravo.status()).isEqualTo(404);
      assertThat(JSON.readTree(bravo.body()).get("code").asText()).isEqualTo("not_found");
      assertThat(JSON.readTree(bravo.body()).has("text")).isFalse();
      assertThat(provider.calls()).isEqualTo(1);
    }

    @Test
    void otherSettingsAreOtherWorkAndNotFound() throws Exception {
      byte[] note = TestAudio.wav(800, 14);
      assertThat(post(note, "r-1", "language", "en").status()).isEqualTo(200);
      String hash = sha256(note);

      assertThat(lookup(Gateway.TOKEN_A, hash, "r", "language", "fr").status()).isEqualTo(404);
      assertThat(lookup(Gateway.TOKEN_A, hash, "r").status()).isEqualTo(404);
      assertThat(
              lookup(Gateway.TOKEN_A, hash, "r", "language", "en", "model", "whisper-large")
                  .status())
          .isEqualTo(404);
      assertThat(lookup(Gateway.TOKEN_A, hash, "r", "language", "en", "prompt", "Ada").status())
          .isEqualTo(404);
      assertThat(
              lookup(Gateway.TOKEN_A, hash, "r", "language", "en", "temperature", "0.2").status())
          .isEqualTo(404);
      assertThat(lookup(Gateway.TOKEN_A, hash, "r", "language", "en").status()).isEqualTo(200);
      assertThat(provider.calls()).isEqualTo(1);
    }

    @Test
    void runningWorkIsAnsweredRunningThenItsTranscriptOnceItFinishes() throws Exception {
      byte[] note = TestAudio.wav(900, 15);
      provider.hold();
      CompletableFuture<Gateway.Reply> upload =
          CompletableFuture.supplyAsync(() -> postUnchecked(note), phones);
      Await.until(() -> provider.calls() == 1, () -> "provider calls: " + provider.calls());

      Gateway.Reply running = lookup(Gateway.TOKEN_A, sha256(note), "r-2", "wait", "0");
      assertThat(running.status()).as(running.body()).isEqualTo(202);
      assertThat(running.retryAfter()).isEqualTo("1");
      assertThat(JSON.readTree(running.body()).get("status").asText()).isEqualTo("running");
      Gateway.Reply stillRunning = lookup(Gateway.TOKEN_A, sha256(note), "r-3", "wait", "1");
      assertThat(stillRunning.status()).as("after waiting 1 s").isEqualTo(202);

      CompletableFuture<Gateway.Reply> waiting =
          CompletableFuture.supplyAsync(
              () -> lookupUnchecked(Gateway.TOKEN_A, sha256(note), "r-4", "wait", "30"), phones);
      provider.release();

      Gateway.Reply finished = waiting.get(30, TimeUnit.SECONDS);
      assertThat(finished.status()).as(finished.body()).isEqualTo(200);
      assertThat(finished.replayed()).isEqualTo("true");
      Gateway.Reply uploaded = upload.get(30, TimeUnit.SECONDS);
      assertThat(JSON.readTree(finished.body()).get("text"))
          .isEqualTo(JSON.readTree(uploaded.body()).get("text"));
      assertThat(provider.calls()).isEqualTo(1);
    }

    @Test
    void aNoteWhoseWorkFailedIsNotFoundSoThePhoneUploadsIt() throws Exception {
      byte[] note = TestAudio.wav(800, 16);
      provider.enqueue(new MockResponse.Builder().code(500).body("{}").build());
      Gateway.Reply failed = post(note, "r-1");
      assertThat(failed.status()).as(failed.body()).isEqualTo(502);

      Gateway.Reply found = lookup(Gateway.TOKEN_A, sha256(note), "r-2", "wait", "2");

      assertThat(found.status()).isEqualTo(404);
      assertThat(provider.calls()).isEqualTo(1);
      assertThat(ledger.chargedMillis("alpha")).isZero();
    }

    @Test
    void workThatFailsWhileALookupWaitsIsNotFound() throws Exception {
      byte[] note = TestAudio.wav(800, 17);
      provider.enqueue(new MockResponse.Builder().code(500).body("{}").build()).hold();
      CompletableFuture<Gateway.Reply> upload =
          CompletableFuture.supplyAsync(() -> postUnchecked(note), phones);
      Await.until(() -> provider.calls() == 1, () -> "provider calls: " + provider.calls());
      CompletableFuture<Gateway.Reply> waiting =
          CompletableFuture.supplyAsync(
              () -> lookupUnchecked(Gateway.TOKEN_A, sha256(note), "r-2", "wait", "30"), phones);
      provider.release();

      assertThat(upload.get(30, TimeUnit.SECONDS).status()).isEqualTo(502);
      assertThat(waiting.get(30, TimeUnit.SECONDS).status()).isEqualTo(404);
      assertThat(provider.calls()).isEqualTo(1);
    }

    @Test
    void anUnknownNoteIsNotFoundAndNeverReachesTheProvider() throws Exception {
      byte[] note = TestAudio.wav(800, 18);

      Gateway.Reply found = lookup(Gateway.TOKEN_A, sha256(note), "r-1", "wait", "0");

      assertThat(found.status()).isEqualTo(404);
      assertThat(JSON.readTree(found.body()).get("request_id").asText()).isEqualTo("r-1");
      assertThat(provider.calls()).isZero();
      assertThat(ledger.usage("alpha").requests()).isZero();
    }

    @Test
    void badHashesSettingsAndWaitsAreInvalidParameters() throws Exception {
      String hash = sha256(TestAudio.wav(800, 19));
      assertInvalid(lookup(Gateway.TOKEN_A, "abc", "r"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash + "0", "r"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash.substring(1) + "g", "r"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "wait", "61"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "wait", "-1"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "wait", "1.5"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "language", "english!"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "response_format", "xml"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "temperature", "hot"));
      assertInvalid(lookup(Gateway.TOKEN_A, hash, "r", "language", "en", "language", "fr"));
      // Escapes the HTTP client would repair, sent as a phone with a bug sends them.
      for (String query : List.of("language=de%zz", "language=%e", "wait=1%", "%zz=en")) {
        String answer = rawGet("/v1/transcriptions/" + hash + "?" + query);
        assertThat(answer).as(query).startsWith("HTTP/1.1 400 ").contains("invalid_parameter");
      }
      assertThat(lookup(Gateway.TOKEN_A, hash, "r", "wait", "60").status())
          .as("60 s is the longest wait, and nothing runs so it answers at once")
          .isEqualTo(404);
    }

    @Test
    void anUnknownOrMissingTokenIsRefusedBeforeAnythingElse() throws Exception {
      assertThat(lookup("not-a-token", "abc", "r").status()).isEqualTo(401);
      assertThat(lookup(null, "abc", "r", "wait", "99").status()).isEqualTo(401);
    }

    private static void assertInvalid(Gateway.Reply reply) throws IOException {
      assertThat(reply.status()).as(reply.body()).isEqualTo(400);
      assertThat(JSON.readTree(reply.body()).get("code").asText()).isEqualTo("invalid_parameter");
    }

    Gateway.Reply post(byte[] note, String requestId, String... fields) throws IOException {
      Request upload = gateway.nativeUpload(Gateway.TOKEN_A, note, fields);
      return gateway.send(upload.newBuilder().header("X-Bolo-Request-Id", requestId).build());
    }

    Gateway.Reply postUnchecked(byte[] note) {
      try {
        return post(note, "r-upload");
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    Gateway.Reply lookup(@Nullable String token, String hash, String requestId, String... query)
        throws IOException {
      HttpUrl.Builder url =
          HttpUrl.get(gateway.url("/v1/transcriptions/")).newBuilder().addPathSegment(hash);
      for (int i = 0; i + 1 < query.length; i += 2) {
        url.addQueryParameter(query[i], query[i + 1]);
      }
      Request.Builder request =
          new Request.Builder().url(url.build()).header("X-Bolo-Request-Id", requestId);
      if (token != null) {
        request.header("Authorization", "Bearer " + token);
      }
      return gateway.send(request.build());
    }

    /** The whole answer to a GET of {@code target}, sent byte for byte as given. */
    String rawGet(String target) throws IOException {
      java.net.URI uri = java.net.URI.create(gateway.url("/"));
      try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
        socket.setSoTimeout(10_000);
        String request =
            "GET "
                + target
                + " HTTP/1.1\r\nHost: "
                + uri.getHost()
                + "\r\nAuthorization: Bearer "
                + Gateway.TOKEN_A
                + "\r\nConnection: close\r\n\r\n";
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      }
    }

    Gateway.Reply lookupUnchecked(String token, String hash, String requestId, String... query) {
      try {
        return lookup(token, hash, requestId, query);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
