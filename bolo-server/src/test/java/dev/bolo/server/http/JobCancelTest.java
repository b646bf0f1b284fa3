package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Cancelling a running job (PROTOCOL v4): the provider's call is cancelled and nothing is charged
 * when no one else waits for its work; when a phone's request waits for the same note, the work
 * goes on for it and is charged once, and only the job ends cancelled. The provider holds each
 * answer, trickling blanks before its JSON, until the test releases it, and sees a connection the
 * gateway closed as a write that fails. One gateway for the class; each test its own device.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobCancelTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  Path dir;
  FakeProvider provider;
  Gateway gateway;
  final List<JsonNode> events = new CopyOnWriteArrayList<>();
  final AtomicInteger closedByGateway = new AtomicInteger();
  volatile CountDownLatch answer = new CountDownLatch(1);

  @BeforeAll
  void start() throws IOException {
    dir = Files.createTempDirectory("bolo-job-cancel");
    provider = new FakeProvider().answerWith(request -> heldAnswer(request.getBodySize()));
    Jobs.Webhooks webhooks =
        new Jobs.Webhooks(
            url -> {},
            (url, message) -> {
              try {
                events.add(JSON.readTree(new String(message.body(), StandardCharsets.UTF_8)));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              return new WebhookSender.Delivery(WebhookSender.Outcome.DELIVERED, 200, "delivered");
            },
            device -> List.of("whsec_" + device));
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dir));
    gateway =
        Gateway.withWebhooks(env, MutableClock.at(Instant.parse("2026-12-01T10:00:00Z")), webhooks);
  }

  @AfterAll
  void stop() {
    answer.countDown();
    gateway.close();
    provider.close();
  }

  @Test
  void aRunningJobNoOneElseWaitsForIsCancelledAtTheProviderAndNeverCharged() throws Exception {
    answer = new CountDownLatch(1);
    int callsBefore = provider.calls();
    int closedBefore = closedByGateway.get();
    String id = submit(Gateway.TOKEN_A, TestAudio.wav(2000, 171));
    Await.until(() -> provider.calls() == callsBefore + 1, () -> "calls: " + provider.calls());

    Gateway.Reply cancelled = gateway.send(jobs("DELETE", id, Gateway.TOKEN_A));
    assertThat(cancelled.status()).isEqualTo(200);
    assertThat(JSON.readTree(cancelled.body()).get("status").asText()).isEqualTo("cancelled");

    // The gateway hung up on the provider: its call is cancelled, not left to finish and bill.
    Await.until(
        () -> closedByGateway.get() == closedBefore + 1, () -> "closed: " + closedByGateway.get());
    Await.until(
        () -> events.stream().anyMatch(event -> event.at("/data/id").asText().equals(id)),
        () -> "events: " + events);
    JsonNode event =
        events.stream().filter(one -> one.at("/data/id").asText().equals(id)).findFirst().get();
    assertThat(event.get("type").asText()).isEqualTo("job.cancelled");
    assertThat(status(id, Gateway.TOKEN_A)).isEqualTo("cancelled");
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.chargedMillis("alpha")).isZero();
    }
    assertThat(provider.calls()).isEqualTo(callsBefore + 1);
  }

  @Test
  void aJobCancelledThroughAnotherInstanceIsStoppedAtItsRunnersNextLeaseRenewal() throws Exception {
    answer = new CountDownLatch(1);
    int closedBefore = closedByGateway.get();
    int callsBefore = provider.calls();
    String device;
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      device = ledger.add("charlie");
    }
    String id = submit(device, TestAudio.wav(2000, 173));
    Await.until(() -> provider.calls() == callsBefore + 1, () -> "calls: " + provider.calls());

    // Another instance sharing the database ends the job: this one learns of it from the row.
    try (LedgerProbe other = LedgerProbe.open(dir, gateway)) {
      assertThat(
              other
                  .ledger()
                  .jobs()
                  .finish(
                      id,
                      new JobStore.Ending(JobStatus.CANCELLED, null, null, null),
                      Instant.parse("2026-12-01T10:00:01Z"),
                      ended -> Optional.empty()))
          .isPresent();
    }

    Await.until(
        Duration.ofSeconds(30),
        () -> closedByGateway.get() == closedBefore + 1,
        () -> "closed: " + closedByGateway.get());
    assertThat(status(id, device)).isEqualTo("cancelled");
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.chargedMillis("charlie")).isZero();
    }
  }

  @Test
  void aJobCancelledWhileAPhoneWaitsForTheSameNoteLeavesThePhoneItsTranscriptChargedOnce()
      throws Exception {
    answer = new CountDownLatch(1);
    byte[] note = TestAudio.wav(3000, 172);
    int callsBefore = provider.calls();
    String id = submit(Gateway.TOKEN_B, note);
    Await.until(() -> provider.calls() == callsBefore + 1, () -> "calls: " + provider.calls());
    CompletableFuture<Gateway.Reply> phone =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gateway.send(gateway.nativeUpload(Gateway.TOKEN_B, note));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    Await.until(() -> waitingCopies() == 2, () -> "copies waiting: " + waitingCopies());

    Gateway.Reply cancelled = gateway.send(jobs("DELETE", id, Gateway.TOKEN_B));
    assertThat(JSON.readTree(cancelled.body()).get("status").asText()).isEqualTo("cancelled");
    answer.countDown();

    Gateway.Reply reply = phone.get(30, TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.body()).contains("transcript of");
    assertThat(status(id, Gateway.TOKEN_B)).isEqualTo("cancelled");
    assertThat(provider.calls()).isEqualTo(callsBefore + 1);
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.chargedMillis("bravo")).isEqualTo(3000);
    }
  }

  /**
   * A provider that takes its time: blanks (which JSON allows before a value) until the test lets
   * it answer; a blank that cannot be written means the gateway closed the connection.
   */
  private MockResponse heldAnswer(long size) {
    CountDownLatch answer = this.answer;
    MockResponseBody body =
        new MockResponseBody() {
          @Override
          public long getContentLength() {
            return -1;
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            try {
              while (!answer.await(20, TimeUnit.MILLISECONDS)) {
                sink.writeUtf8(" ").flush();
              }
            } catch (IOException e) {
              closedByGateway.incrementAndGet();
              throw e;
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IOException(e);
            }
            sink.writeUtf8("{\"text\":\"transcript of " + size + " bytes\"}").flush();
          }
        };
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body(body)
        .onResponseEnd(mockwebserver3.SocketEffect.ShutdownConnection.INSTANCE)
        .build();
  }

  private long waitingCopies() {
    return (long) gateway.app().metrics().get("bolo_dedup_waiting_copies").gauge().value();
  }

  private String status(String id, String token) throws IOException {
    return JSON.readTree(gateway.send(jobs("GET", id, token)).body()).get("status").asText();
  }

  private String submit(String token, byte[] note) throws IOException {
    MultipartBody form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                "audio", "note.wav", RequestBody.create(note, MediaType.get("audio/wav")))
            .addFormDataPart("webhook_url", "https://receiver.test/hook")
            .build();
    Gateway.Reply reply =
        gateway.send(
            new Request.Builder()
                .url(gateway.url("/v1/jobs"))
                .header("Authorization", "Bearer " + token)
                .post(form)
                .build());
    assertThat(reply.status()).as(reply.body()).isEqualTo(202);
    return JSON.readTree(reply.body()).get("id").asText();
  }

  private Request jobs(String method, String id, String token) {
    return new Request.Builder()
        .url(gateway.url("/v1/jobs/" + id))
        .header("Authorization", "Bearer " + token)
        .method(method, null)
        .build();
  }
}
