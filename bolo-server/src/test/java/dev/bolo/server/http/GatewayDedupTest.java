package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The de-duplication rules of PROTOCOL.md, against a real gateway and a fake provider. */
class GatewayDedupTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(Map.of("BOLO_OPENAI_MODELS", "whisper-1,whisper-large"));

  @Test
  void concurrentDuplicatesShareOneUpstreamCall() throws Exception {
    byte[] note = TestAudio.wav(1500, 1);
    fixture.provider().hold();
    int copies = 16;
    CountDownLatch ready = new CountDownLatch(copies);
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    try {
      List<Future<Gateway.Reply>> replies = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        replies.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  return fixture
                      .gateway()
                      .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
                }));
      }
      ready.await();
      awaitCalls(1);
      fixture.provider().release();
      List<JsonNode> bodies = new ArrayList<>();
      int replayed = 0;
      for (Future<Gateway.Reply> reply : replies) {
        Gateway.Reply r = reply.get(30, TimeUnit.SECONDS);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        bodies.add(body);
        if (body.get("deduplicated").asBoolean()) {
          replayed++;
          assertThat(r.replayed()).isEqualTo("true");
        } else {
          assertThat(r.replayed()).isNull();
        }
      }
      assertThat(fixture.provider().calls()).isEqualTo(1);
      assertThat(bodies).extracting(b -> b.get("text").asText()).containsOnly(text(bodies.get(0)));
      assertThat(replayed).isEqualTo(copies - 1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void everyOutputChangingSettingIsItsOwnWork() throws Exception {
    byte[] note = TestAudio.wav(800, 2);
    String en = text(ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "language", "en")));
    String fr = text(ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "language", "fr")));
    assertThat(fixture.provider().calls()).isEqualTo(2);
    assertThat(en).endsWith("in en");
    assertThat(fr).endsWith("in fr");

    ok(
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note, "language", "en", "model", "whisper-large"));
    assertThat(fixture.provider().calls()).isEqualTo(3);
    ok(
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note, "language", "en", "prompt", "Names: Ada"));
    assertThat(fixture.provider().calls()).isEqualTo(4);
    ok(
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note, "language", "en", "temperature", "0.2"));
    assertThat(fixture.provider().calls()).isEqualTo(5);
  }

  @Test
  void equivalentSpellingsOfASettingAreOneWork() throws Exception {
    byte[] note = TestAudio.wav(800, 3);
    JsonNode first = ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "language", "en"));
    JsonNode upper = ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "language", " EN "));
    JsonNode defaults =
        ok(
            fixture
                .gateway()
                .nativeUpload(
                    Gateway.TOKEN_A,
                    note,
                    "language",
                    "en",
                    "temperature",
                    "0.00",
                    "response_format",
                    "json",
                    "model",
                    "whisper-1"));
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(first.get("deduplicated").asBoolean()).isFalse();
    assertThat(upper.get("deduplicated").asBoolean()).isTrue();
    assertThat(defaults.get("deduplicated").asBoolean()).isTrue();
    assertThat(text(upper)).isEqualTo(text(first));
  }

  @Test
  void devicesNeverShareTranscripts() throws Exception {
    byte[] note = TestAudio.wav(800, 4);
    fixture.provider().enqueue(json("{\"text\":\"alpha's private words\"}"));
    fixture.provider().enqueue(json("{\"text\":\"bravo's own words\"}"));
    JsonNode a = ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    JsonNode b = ok(fixture.gateway().nativeUpload(Gateway.TOKEN_B, note));
    assertThat(fixture.provider().calls()).isEqualTo(2);
    assertThat(text(a)).isEqualTo("alpha's private words");
    assertThat(text(b)).isEqualTo("bravo's own words");
    assertThat(b.get("deduplicated").asBoolean()).isFalse();
  }

  @Test
  void aFailureIsNotKeptAndTheNextCopyRunsAfresh() throws Exception {
    byte[] note = TestAudio.wav(800, 5);
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(503)
                .setHeader("Retry-After", "7")
                .body("{\"error\":{\"message\":\"overloaded\"}}")
                .build());
    Gateway.Reply failed =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(failed.status()).isEqualTo(503);
    assertThat(JSON.readTree(failed.body()).get("code").asText()).isEqualTo("upstream_unavailable");
    assertThat(failed.retryAfter()).isEqualTo("7");

    JsonNode retried = ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(fixture.provider().calls()).isEqualTo(2);
    assertThat(retried.get("deduplicated").asBoolean()).isFalse();
  }

  @Test
  void aClientThatHangsUpDoesNotCancelTheWorkItsResendJoins() throws Exception {
    byte[] note = TestAudio.wav(800, 6);
    fixture.provider().hold();
    OkHttpClient impatient = fixture.gateway().client().newBuilder().build();
    Call first = impatient.newCall(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    Thread caller =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    first.execute().close();
                  } catch (IOException expected) {
                    // cancelled below
                  }
                });
    awaitCalls(1);
    first.cancel();
    caller.join(5_000);

    Future<Gateway.Reply> resend =
        Executors.newVirtualThreadPerTaskExecutor()
            .submit(
                () ->
                    fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note)));
    fixture.provider().release();
    Gateway.Reply reply = resend.get(30, TimeUnit.SECONDS);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).get("deduplicated").asBoolean()).isTrue();
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void aReplayExpiresAfterTheTtl() throws Exception {
    byte[] note = TestAudio.wav(800, 7);
    ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    fixture.gateway().advance(Duration.ofMinutes(9).plusSeconds(59));
    assertThat(
            ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note))
                .get("deduplicated")
                .asBoolean())
        .isTrue();
    assertThat(fixture.provider().calls()).isEqualTo(1);

    fixture.gateway().advance(Duration.ofSeconds(2));
    assertThat(
            ok(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note))
                .get("deduplicated")
                .asBoolean())
        .isFalse();
    assertThat(fixture.provider().calls()).isEqualTo(2);
  }

  @Test
  void anIdempotencyKeyReusedForOtherAudioIsRefused() throws Exception {
    var first =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, TestAudio.wav(800, 8))
            .newBuilder()
            .header("Idempotency-Key", "note-42")
            .build();
    var other =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, TestAudio.wav(800, 9))
            .newBuilder()
            .header("Idempotency-Key", "note-42")
            .build();
    assertThat(fixture.gateway().send(first).status()).isEqualTo(200);
    assertThat(fixture.gateway().send(first).status()).isEqualTo(200);
    Gateway.Reply reused = fixture.gateway().send(other);
    assertThat(reused.status()).isEqualTo(422);
    assertThat(JSON.readTree(reused.body()).get("code").asText())
        .isEqualTo("idempotency_key_reused");
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void theRequestIdIsEchoedButNeverDecidesIdentity() throws Exception {
    byte[] note = TestAudio.wav(800, 10);
    var one =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .header("X-Bolo-Request-Id", "phone-1")
            .build();
    var two =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .header("X-Bolo-Request-Id", "phone-2")
            .build();
    Gateway.Reply a = fixture.gateway().send(one);
    Gateway.Reply b = fixture.gateway().send(two);
    assertThat(a.requestId()).isEqualTo("phone-1");
    assertThat(JSON.readTree(b.body()).get("request_id").asText()).isEqualTo("phone-2");
    assertThat(JSON.readTree(b.body()).get("deduplicated").asBoolean()).isTrue();
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  private JsonNode ok(okhttp3.Request request) throws IOException {
    Gateway.Reply reply = fixture.gateway().send(request);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private static String text(JsonNode body) {
    return body.get("text").asText();
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }

  private void awaitCalls(int expected) throws InterruptedException {
    Await.until(
        () -> fixture.provider().calls() >= expected,
        () -> "provider saw " + fixture.provider().calls() + " calls, expected " + expected);
  }
}
