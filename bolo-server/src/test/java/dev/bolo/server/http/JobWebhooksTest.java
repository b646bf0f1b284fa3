package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.server.webhook.WebhookUrlPolicy;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
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
              return new WebhookSender.Delivery(WebhookSender.Outcome.DELIVERED, 200, "delivered");
            },
            device -> List.of("whsec_" + device));
    gateway =
        Gateway.withWebhooks(
            Gateway.openAiEnvironment(provider, dir),
            MutableClock.at(Instant.parse("2026-12-01T10:00:00Z")),
            webhooks);
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
