package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.WebhookOutbox;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.server.webhook.WebhookUrlPolicy;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's webhook through a gateway whose webhook side is the test's: the address policy is asked
 * when the job is made, and the ended job's event reaches the sender signed with the device's
 * secrets, the job in its body.
 */
class JobWebhooksTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  FakeProvider provider;
  Gateway gateway;
  final List<Sent> sent = new CopyOnWriteArrayList<>();
  final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T10:00:00Z"));
  volatile boolean receiverUp = true;

  private static final String ADMIN_TOKEN = "admin-token-for-webhooks-0123456789";

  record Sent(String url, WebhookSender.Message message) {}

  @BeforeEach
  void start() throws Exception {
    provider = new FakeProvider();
    Jobs.Webhooks webhooks =
        new Jobs.Webhooks(
            url -> {
              if (!url.startsWith("https://receiver.test/")) {
                throw new WebhookUrlPolicy.RefusedWebhookUrl(
                    "webhook_url resolves to a private address");
              }
            },
            (url, message) -> {
              sent.add(new Sent(url, message));
              return receiverUp
                  ? new WebhookSender.Delivery(WebhookSender.Outcome.DELIVERED, 200, "delivered")
                  : new WebhookSender.Delivery(
                      WebhookSender.Outcome.REJECTED, 500, "the receiver answered HTTP 500");
            },
            device -> List.of("whsec_" + device));
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dir));
    env.put("BOLO_ADMIN_TOKEN", ADMIN_TOKEN);
    gateway = Gateway.withWebhooks(env, clock, webhooks);
  }

  @AfterEach
  void stop() {
    gateway.close();
    provider.close();
  }

  @Test
  void anEndedJobsEventReachesTheSenderSignedWithItsDevicesSecret() throws Exception {
    Gateway.Reply reply =
        gateway.send(
            submit(
                "webhook_url", "https://receiver.test/hook", "metadata", "{\"order\":\"A-17\"}"));
    assertThat(reply.status()).as(reply.body()).isEqualTo(202);
    String id = JSON.readTree(reply.body()).get("id").asText();
    Await.until(() -> !sent.isEmpty(), () -> "sent: " + sent);

    Sent event = sent.getFirst();
    assertThat(event.url()).isEqualTo("https://receiver.test/hook");
    assertThat(event.message().id()).startsWith("msg_");
    assertThat(event.message().secrets()).containsExactly("whsec_alpha");
    JsonNode body = JSON.readTree(new String(event.message().body(), StandardCharsets.UTF_8));
    assertThat(body.get("type").asText()).isEqualTo("job.succeeded");
    assertThat(body.at("/data/id").asText()).isEqualTo(id);
    assertThat(body.at("/data/result/text").asText()).startsWith("transcript of");
    assertThat(body.at("/data/metadata/order").asText()).isEqualTo("A-17");
    // Delivered: no second attempt, however often the outbox is looked at.
    assertThat(gateway.app().jobs().deliverDueWebhooks()).isZero();
    assertThat(sent).hasSize(1);
  }

  @Test
  void aUrlThePolicyRefusesIs400NamingTheReasonAndNoJobIsMade() throws Exception {
    Gateway.Reply reply = gateway.send(submit("webhook_url", "https://10.0.0.1/hook"));
    assertThat(reply.status()).isEqualTo(400);
    JsonNode error = JSON.readTree(reply.body());
    assertThat(error.get("code").asText()).isEqualTo("invalid_parameter");
    assertThat(error.get("error").asText()).isEqualTo("webhook_url resolves to a private address");
    assertThat(provider.calls()).isZero();
  }

  @Test
  void anEventNoReceiverTookIsShownToTheOperatorAndSentAgainWithItsWebhookId() throws Exception {
    receiverUp = false;
    Gateway.Reply reply = gateway.send(submit("webhook_url", "https://receiver.test/hook"));
    assertThat(reply.status()).as(reply.body()).isEqualTo(202);
    String jobId = JSON.readTree(reply.body()).get("id").asText();
    Await.until(() -> !sent.isEmpty(), () -> "sent: " + sent);
    String webhookId = sent.getFirst().message().id();
    // The attempt is recorded once the receiver has answered: the clock moves on only then, or that
    // attempt would find the day over and give the event up at once (seen at load 12).
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      WebhookOutbox outbox = ledger.ledger().webhookOutbox();
      Await.until(
          () ->
              outbox.due(clock.instant().plus(Duration.ofHours(1)), 10).stream()
                  .anyMatch(event -> event.id().equals(webhookId) && event.attempts() == 1),
          () -> "the first attempt is not recorded");
    }

    // A day later the next attempt is refused too, and the event is given up.
    clock.advance(Duration.ofHours(25));
    Await.until(
        () -> {
          gateway.app().jobs().deliverDueWebhooks();
          return failedWebhooks() == 1;
        },
        () -> "sent: " + sent);

    JsonNode panel = admin("GET", "/admin/api/jobs");
    assertThat(panel.at("/counts/succeeded").asLong()).isEqualTo(1);
    assertThat(panel.at("/counts/queued").asLong()).isZero();
    assertThat(panel.at("/recent/0/id").asText()).isEqualTo(jobId);
    assertThat(panel.at("/recent/0/device").asText()).isEqualTo("alpha");
    assertThat(panel.at("/recent/0/status").asText()).isEqualTo("succeeded");
    JsonNode failed = panel.at("/failed_webhooks/0");
    assertThat(failed.get("id").asText()).isEqualTo(webhookId);
    assertThat(failed.get("job_id").asText()).isEqualTo(jobId);
    assertThat(failed.get("last_status").asInt()).isEqualTo(500);
    assertThat(failed.get("attempts").asInt()).isEqualTo(2);
    // The operator oversees the queue, not the notes: no transcript in the panel.
    assertThat(panel.toString()).doesNotContain("transcript of");

    receiverUp = true;
    JsonNode queued = admin("POST", "/admin/api/webhooks/" + webhookId + "/send-again");
    assertThat(queued.get("state").asText()).isEqualTo("pending");
    Await.until(
        () -> {
          gateway.app().jobs().deliverDueWebhooks();
          return sent.size() == 3;
        },
        () -> "sent: " + sent);

    assertThat(sent).extracting(one -> one.message().id()).containsOnly(webhookId);
    assertThat(admin("GET", "/admin/api/jobs").get("failed_webhooks")).isEmpty();
    Gateway.Reply again = adminReply("POST", "/admin/api/webhooks/" + webhookId + "/send-again");
    assertThat(again.status()).isEqualTo(409);
    assertThat(JSON.readTree(again.body()).get("code").asText()).isEqualTo("not_failed");
    assertThat(adminReply("POST", "/admin/api/webhooks/msg_unknown/send-again").status())
        .isEqualTo(404);
  }

  private int failedWebhooks() {
    try {
      return admin("GET", "/admin/api/jobs").get("failed_webhooks").size();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private JsonNode admin(String method, String path) throws java.io.IOException {
    Gateway.Reply reply = adminReply(method, path);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private Gateway.Reply adminReply(String method, String path) throws java.io.IOException {
    return gateway.send(
        new Request.Builder()
            .url(gateway.url(path))
            .header("Authorization", "Bearer " + ADMIN_TOKEN)
            .method(method, method.equals("POST") ? RequestBody.create(new byte[0]) : null)
            .build());
  }

  private Request submit(String... fields) {
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                "audio",
                "note.wav",
                RequestBody.create(TestAudio.wav(1000, 130), MediaType.get("audio/wav")));
    for (int i = 0; i + 1 < fields.length; i += 2) {
      form.addFormDataPart(fields[i], fields[i + 1]);
    }
    return new Request.Builder()
        .url(gateway.url("/v1/jobs"))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .post(form.build())
        .build();
  }
}
