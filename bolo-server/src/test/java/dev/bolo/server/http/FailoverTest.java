package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import mockwebserver3.MockResponse;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two providers behind one route (PROTOCOL.md, "Several engines"): a note goes to the primary, and
 * to the backup when the primary is down, refuses calls (429, 5xx), is full or its breaker is open;
 * a refusal of the note itself is the note's answer. The work is the route's: one charge, replays
 * whichever provider served it.
 */
class FailoverTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The fixture's own provider is the primary. */
  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  private final FakeProvider backup = newProvider();

  private static FakeProvider newProvider() {
    try {
      return new FakeProvider();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stopBackup() {
    backup.close();
  }

  private FakeProvider primary() {
    return fixture.provider();
  }

  private Gateway start(Map<String, String> more) {
    Map<String, String> env = new HashMap<>();
    env.put("BOLO_ENGINES", "primary,backup");
    env.put("BOLO_ENGINE_PRIMARY_KIND", "openai");
    env.put("BOLO_ENGINE_PRIMARY_BASE_URL", primary().baseUrl());
    env.put("BOLO_ENGINE_PRIMARY_API_KEY", "sk-primary");
    env.put("BOLO_ENGINE_BACKUP_KIND", "openai");
    env.put("BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl());
    env.put("BOLO_ENGINE_BACKUP_API_KEY", "sk-backup");
    env.put("BOLO_ROUTES", "whisper-1=primary/whisper-1,backup/whisper-large-v3-turbo");
    env.putAll(more);
    return fixture.start(env);
  }

  private Gateway.Reply send(byte[] note) throws Exception {
    return fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
  }

  private static MockResponse status(int code, String... headers) {
    MockResponse.Builder response =
        new MockResponse.Builder()
            .code(code)
            .setHeader("Content-Type", "application/json")
            .body("{\"error\":{\"message\":\"status " + code + "\"}}");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      response.setHeader(headers[i], headers[i + 1]);
    }
    return response.build();
  }

  @Test
  void aPrimaryThatFailsSendsTheNoteToTheBackupWhichIsNamedAndChargedOnce() throws Exception {
    start(Map.of());
    primary().answerWith(request -> status(503));
    byte[] note = TestAudio.wav(1200, 91);

    Gateway.Reply first = send(note);
    Gateway.Reply resent = send(note);

    assertThat(first.status()).as(first.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(first.body());
    assertThat(body.path("engine").asText()).isEqualTo("backup");
    assertThat(body.path("model").asText()).isEqualTo("whisper-large-v3-turbo");
    assertThat(first.model()).isEqualTo("whisper-large-v3-turbo");
    assertThat(resent.replayed()).isEqualTo("true");
    assertThat(JSON.readTree(resent.body()).path("engine").asText()).isEqualTo("backup");
    assertThat(primary().calls()).isEqualTo(1);
    assertThat(backup.calls()).isEqualTo(1);
    assertThat(FakeProvider.bodyText(backup.takeRequest()))
        .contains("name=\"model\"\r\n\r\nwhisper-large-v3-turbo");
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(1200);
  }

  @Test
  void aRefusalOfTheNoteItselfIsItsAnswerAndNoOtherProviderIsAsked() throws Exception {
    start(Map.of());
    primary().enqueue(status(400));

    Gateway.Reply reply = send(TestAudio.wav(900, 92));

    assertThat(reply.status()).as(reply.body()).isEqualTo(422);
    assertThat(JSON.readTree(reply.body()).path("code").asText()).isEqualTo("upstream_rejected");
    assertThat(backup.calls()).isZero();
  }

  @Test
  void a429WithRetryAfterKeepsThePrimaryClosedThatLongThenItIsProbedAgain() throws Exception {
    Gateway gateway = start(Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN));
    primary().enqueue(status(429, "Retry-After", "60"));

    List<Gateway.Reply> replies = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      replies.add(send(TestAudio.wav(800, 100 + i)));
    }

    assertThat(replies).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(primary().calls()).as("no call while it said to wait").isEqualTo(1);
    assertThat(backup.calls()).isEqualTo(5);
    // Readiness is checked once a second.
    Await.until(
        () -> readyz(gateway).contains("\"engine\":\"degraded\""),
        () -> "/readyz does not say the engine is degraded: " + readyz(gateway));
    // The operator's API names the route that lost its primary.
    assertThat(
            JSON.readTree(get(gateway, "/admin/api/live", ADMIN_TOKEN))
                .path("readiness")
                .path("engine")
                .path("detail")
                .asText())
        .contains("failing over: whisper-1 → primary/whisper-1");
    // The dashboard's live figures show each target as /metrics counts it.
    JsonNode targets = JSON.readTree(get(gateway, "/admin/api/live", ADMIN_TOKEN)).path("targets");
    assertThat(targets).hasSize(2);
    assertThat(targets.get(0).path("target").asText()).isEqualTo("primary/whisper-1");
    assertThat(targets.get(0).path("breaker").asText()).isEqualTo("open");
    assertThat(targets.get(0).path("calls").path("unavailable").asInt()).isEqualTo(1);
    assertThat(targets.get(1).path("calls").path("ok").asInt()).isEqualTo(5);

    // The minute it asked for passes on the gateway's ticker, however long the machine took.
    gateway.advance(Duration.ofSeconds(61));
    Gateway.Reply probe = send(TestAudio.wav(800, 110));

    assertThat(probe.status()).as(probe.body()).isEqualTo(200);
    assertThat(JSON.readTree(probe.body()).path("engine").asText()).isEqualTo("primary");
    assertThat(primary().calls()).isEqualTo(2);
  }

  @Test
  void aPrimaryFullOfCallsNeverHoldsMoreThanItsLimitAndNoNoteIsLost() throws Exception {
    start(Map.of("BOLO_ENGINE_PRIMARY_MAX_CONCURRENT", "4"));
    // Both hold every call: the primary is full until every note has found its provider.
    primary().hold();
    backup.hold();

    List<Gateway.Reply> replies = new ArrayList<>();
    try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Gateway.Reply>> sent = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        byte[] note = TestAudio.wav(700, 200 + i);
        sent.add(phones.submit(() -> send(note)));
      }
      Await.until(
          () -> primary().inFlight() + backup.inFlight() == 40,
          () -> primary().inFlight() + " at the primary, " + backup.inFlight() + " at the backup");
      assertThat(primary().inFlight()).isEqualTo(4);
      primary().release();
      backup.release();
      for (Future<Gateway.Reply> reply : sent) {
        replies.add(reply.get());
      }
    }

    assertThat(replies).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(primary().mostInFlight()).isEqualTo(4);
    assertThat(primary().calls()).isEqualTo(4);
    assertThat(primary().calls() + backup.calls()).isEqualTo(40);
  }

  @Test
  void everyTargetUnavailableIsTheGatewaysOwn503WithTheShortestRetryAfter() throws Exception {
    start(Map.of());
    primary().answerWith(request -> status(429, "Retry-After", "30"));
    backup.answerWith(request -> status(429, "Retry-After", "7"));

    Gateway.Reply first = send(TestAudio.wav(700, 120));
    Gateway.Reply second = send(TestAudio.wav(700, 121));
    fixture.gateway().advance(Duration.ofSeconds(3));
    Gateway.Reply third = send(TestAudio.wav(700, 122));

    assertThat(first.status()).isEqualTo(503);
    assertThat(second.status()).isEqualTo(503);
    assertThat(JSON.readTree(second.body()).path("code").asText()).isEqualTo("server_unavailable");
    // The backup's 7 s, counted down on the gateway's ticker.
    assertThat(second.retryAfter()).isEqualTo("7");
    assertThat(third.status()).isEqualTo(503);
    assertThat(third.retryAfter()).isEqualTo("4");
    assertThat(primary().calls() + backup.calls()).as("no call while both wait").isEqualTo(2);
  }

  @Test
  void aTranslationAskedOfARouteWhoseEnginesCannotTranslateIsRefusedNotPostponed()
      throws Exception {
    Gateway gateway =
        start(
            Map.of(
                "BOLO_ENGINES",
                "primary,backup,local",
                "BOLO_ENGINE_LOCAL_KIND",
                "offline",
                "BOLO_ROUTES",
                "whisper-1=primary/whisper-1,backup/whisper-1;moonshine=local/moonshine-tiny-en"));

    Gateway.Reply reply =
        gateway.send(
            Gateway.openAiUploadRequest(
                gateway.url("/v1/audio/translations"),
                Gateway.TOKEN_A,
                TestAudio.wav(700, 95),
                "model",
                "moonshine"));

    assertThat(reply.status()).as(reply.body()).isEqualTo(422);
    assertThat(reply.body()).contains("translates");
    assertThat(primary().calls() + backup.calls()).isZero();
  }

  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";

  private static String get(Gateway gateway, String path, String token) throws Exception {
    try (Response response =
        gateway
            .client()
            .newCall(
                new Request.Builder()
                    .url(gateway.url(path))
                    .header("Authorization", "Bearer " + token)
                    .build())
            .execute()) {
      assertThat(response.code()).isEqualTo(200);
      return response.body().string();
    }
  }

  private static String readyz(Gateway gateway) {
    try (Response response =
        gateway
            .client()
            .newCall(new Request.Builder().url(gateway.url("/readyz")).build())
            .execute()) {
      return response.body().string();
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
