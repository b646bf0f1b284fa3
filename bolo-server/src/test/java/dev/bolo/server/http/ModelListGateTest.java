package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/models} goes through the one gate of every device route: an unknown token is 401,
 * the models count against the device's rate and a device over it is 429, and a draining gateway
 * answers 503, each in OpenAI's error shape.
 */
class ModelListGateTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_RATE_LIMIT_PER_MINUTE", "2"));

  private Gateway gateway() {
    return fixture.gateway();
  }

  @Test
  void withoutAKnownTokenTheModelsAre401() throws Exception {
    for (String path : new String[] {"/v1/models", "/v1/models/whisper-1"}) {
      for (Gateway.Reply reply :
          new Gateway.Reply[] {get(path, null), get(path, "no-such-token")}) {
        assertThat(reply.status()).as(path).isEqualTo(401);
        assertThat(openAiCode(reply)).isEqualTo("unauthorized");
      }
    }
  }

  @Test
  void theModelsCountAgainstTheDevicesRateAndADeviceOverItIs429() throws Exception {
    assertThat(get("/v1/models", Gateway.TOKEN_A).status()).isEqualTo(200);
    assertThat(get("/v1/models/whisper-1", Gateway.TOKEN_A).status()).isEqualTo(200);

    Gateway.Reply limited = get("/v1/models", Gateway.TOKEN_A);

    assertThat(limited.status()).as(limited.body()).isEqualTo(429);
    assertThat(openAiCode(limited)).isEqualTo("rate_limited");
    assertThat(limited.retryAfter()).isEqualTo("30");
    assertThat(get("/v1/models/whisper-1", Gateway.TOKEN_A).status()).isEqualTo(429);
    Gateway.Reply upload = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, note()));
    assertThat(upload.status()).as("the same budget as uploads").isEqualTo(429);
    assertThat(get("/v1/models", Gateway.TOKEN_B).status()).isEqualTo(200);
  }

  @Test
  void aDrainingGatewayAnswersTheModels503AsItAnswersTheOtherRoutes() throws Exception {
    // A note held at the provider keeps the drain going; a connection opened before it carries
    // the requests asked during it (the drain closes the port to new ones).
    fixture.provider().hold();
    CompletableFuture<Gateway.Reply> held =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gateway().send(gateway().nativeUpload(Gateway.TOKEN_B, note()));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            runnable -> Thread.ofVirtual().start(runnable));
    Await.until(() -> fixture.provider().calls() == 1, () -> "the note at the provider");
    assertThat(get("/v1/models", Gateway.TOKEN_A).status()).isEqualTo(200);
    String readyz = gateway().url("/readyz");
    List<String> models =
        List.of(gateway().url("/v1/models"), gateway().url("/v1/models/whisper-1"));
    CompletableFuture<Boolean> drained =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gateway().app().drain(Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            },
            runnable -> Thread.ofVirtual().start(runnable));
    Await.until(
        () -> getUrl(readyz, null).status() == 503 || drained.isDone(), () -> "not draining");

    for (String url : models) {
      Gateway.Reply refused = getUrl(url, Gateway.TOKEN_A);
      assertThat(refused.status()).as(url + ": " + refused.body()).isEqualTo(503);
      assertThat(openAiCode(refused)).isEqualTo("server_unavailable");
      assertThat(refused.retryAfter()).isNotNull();
    }
    fixture.provider().release();
    assertThat(held.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(drained.get(30, TimeUnit.SECONDS)).isTrue();
  }

  private Gateway.Reply get(String path, @Nullable String token) {
    return getUrl(gateway().url(path), token);
  }

  /** As {@link #get}, by URL: a draining gateway's port is closed, so its number is gone too. */
  private Gateway.Reply getUrl(String url, @Nullable String token) {
    Request.Builder request = new Request.Builder().url(url);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return gateway().send(request.build());
    } catch (IOException e) {
      throw new AssertionError(url + " not answered", e);
    }
  }

  private static String openAiCode(Gateway.Reply reply) throws IOException {
    JsonNode error = JSON.readTree(reply.body()).path("error");
    assertThat(error.isObject()).as(reply.body()).isTrue();
    return error.path("code").asText();
  }

  private static byte[] note() {
    return TestAudio.wav(500, 3);
  }
}
