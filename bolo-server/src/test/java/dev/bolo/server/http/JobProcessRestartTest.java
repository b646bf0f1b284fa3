package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * Jobs outlive their gateway: a real gateway process is killed with SIGKILL while one job's note is
 * at the provider (before the engine answered) and another job, already transcribed, has its
 * webhook event refused by a receiver that is down (after the answer, before the delivery). A new
 * gateway started on the same data directory runs the first job again from the note in the ledger's
 * database and delivers the second's event from the outbox, with the webhook-id its refused
 * attempts carried: each job is answered by one successful call and charged once.
 */
class JobProcessRestartTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final FakeProvider provider = newProvider();
  final OkHttpClient client =
      new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(60)).build();
  final Receiver receiver = new Receiver();

  @AfterEach
  void stop() {
    receiver.close();
    provider.close();
    client.dispatcher().executorService().shutdown();
  }

  @Test
  void jobsWhoseGatewayWasKilledBeforeTheAnswerOrBeforeTheWebhookEndOnceAfterTheRestart()
      throws Exception {
    Path data = dir.resolve("data");
    String token;
    // A device enrolled in the ledger has a webhook secret to sign its events with.
    try (LedgerProbe ledger = LedgerProbe.open(data)) {
      token = ledger.add("meeting");
    }
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, data));
    env.put("BOLO_WEBHOOK_HTTP_HOSTS", "127.0.0.1:" + receiver.port());
    String hook = "http://127.0.0.1:" + receiver.port() + "/hook";
    String answered;
    String atProvider;
    try (GatewayProcess first = GatewayProcess.start(env, dir.resolve("first.log"))) {
      // Transcribed, its event refused: the receiver is down.
      answered = submit(first, token, TestAudio.wav(2000, 63), hook);
      Await.until(() -> receiver.deliveriesOf(answered) >= 1, () -> "deliveries: " + receiver.log);
      // Its note at the provider when the gateway dies.
      provider.hold();
      atProvider = submit(first, token, TestAudio.wav(3000, 64), hook);
      Await.until(() -> provider.calls() == 2, () -> "provider calls: " + provider.calls());
      first.kill();
    }
    provider.release();
    receiver.up = true;

    try (GatewayProcess second = GatewayProcess.start(env, dir.resolve("second.log"))) {
      JsonNode[] job = new JsonNode[1];
      Await.until(
          Duration.ofSeconds(60),
          () -> {
            job[0] = get(second, token, atProvider);
            return job[0].path("status").asText().equals("succeeded");
          },
          () -> "job " + job[0]);
      assertThat(job[0].at("/result/audio_sha256").asText())
          .isEqualTo(job[0].at("/audio_sha256").asText());
      Await.until(
          Duration.ofSeconds(60),
          () -> receiver.deliveredOf(answered) && receiver.deliveredOf(atProvider),
          () -> "deliveries: " + receiver.log);
      // The killed gateway's call answered nobody; the restarted one's answered the job.
      assertThat(provider.calls()).isEqualTo(3);
      second.terminate();
      assertThat(second.awaitExit(Duration.ofSeconds(60))).isZero();
    }
    // Every attempt of the answered job's event, refused before the kill or taken after, is one
    // event: the same webhook-id, so a receiver stores it once.
    assertThat(receiver.idsOf(answered))
        .hasSizeGreaterThanOrEqualTo(2)
        .containsOnly(receiver.idsOf(answered).getFirst());
    assertThat(receiver.idsOf(atProvider)).doesNotContainAnyElementsOf(receiver.idsOf(answered));
    try (LedgerProbe ledger = LedgerProbe.open(data)) {
      assertThat(ledger.chargedMillis("meeting")).isEqualTo(5000);
    }
  }

  private String submit(GatewayProcess gateway, String token, byte[] note, String hook)
      throws IOException {
    Request submit =
        new Request.Builder()
            .url(gateway.url("/v1/jobs"))
            .header("Authorization", "Bearer " + token)
            .post(
                new MultipartBody.Builder()
                    .setType(MultipartBody.FORM)
                    .addFormDataPart(
                        "audio", "note.wav", RequestBody.create(note, MediaType.get("audio/wav")))
                    .addFormDataPart("webhook_url", hook)
                    .build())
            .build();
    try (Response response = client.newCall(submit).execute()) {
      String body = response.body().string();
      assertThat(response.code()).as(body).isEqualTo(202);
      return JSON.readTree(body).get("id").asText();
    }
  }

  private JsonNode get(GatewayProcess gateway, String token, String id) {
    Request request =
        new Request.Builder()
            .url(gateway.url("/v1/jobs/" + id))
            .header("Authorization", "Bearer " + token)
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

  /** One webhook attempt as the receiver saw it, and what it answered. */
  record Delivery(String webhookId, String jobId, int status) {}

  /** A webhook receiver on loopback: 503 to every attempt while down, 204 once up. */
  static final class Receiver implements AutoCloseable {
    final List<Delivery> log = new CopyOnWriteArrayList<>();
    volatile boolean up;
    private final HttpServer server;

    Receiver() {
      try {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      server.createContext(
          "/hook",
          exchange -> {
            try (exchange) {
              JsonNode event = JSON.readTree(exchange.getRequestBody());
              int status = up ? 204 : 503;
              log.add(
                  new Delivery(
                      exchange.getRequestHeaders().getFirst("webhook-id"),
                      event.at("/data/id").asText(),
                      status));
              exchange.sendResponseHeaders(status, -1);
            }
          });
      server.start();
    }

    int port() {
      return server.getAddress().getPort();
    }

    long deliveriesOf(String jobId) {
      return log.stream().filter(d -> d.jobId().equals(jobId)).count();
    }

    boolean deliveredOf(String jobId) {
      return log.stream().anyMatch(d -> d.jobId().equals(jobId) && d.status() == 204);
    }

    List<String> idsOf(String jobId) {
      return log.stream().filter(d -> d.jobId().equals(jobId)).map(Delivery::webhookId).toList();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
