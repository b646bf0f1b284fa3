package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.NodePackage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job end to end as an integrator meets it: a device made on the dashboard's API gets its webhook
 * secret, a job names a receiver the operator allowed over plain http, and the gateway's own sender
 * delivers the ended job's event to a receiver nobody here wrote (npm {@code standardwebhooks}'
 * {@code Webhook.verify} in a Node server on loopback), which finds the signature good and the
 * transcript in the event.
 */
class JobWebhookEndToEndTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "admin-token-for-jobs-0123456789";

  @TempDir Path dir;

  @Test
  void aJobsEventReachesAReceiverThatVerifiesItWithTheReferenceLibrary() throws Exception {
    NodePackage receiverPackage =
        NodePackage.install("node-webhooks", "standardwebhooks/package.json", "receiver.mjs");
    Path secretFile = dir.resolve("secret");
    Process receiver =
        receiverPackage.start(
            "receiver.mjs",
            Map.of("WEBHOOK_SECRET_FILE", secretFile.toString(), "EXPECTED", "1"),
            Files.createDirectories(dir.resolve("receiver")));
    try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8));
        FakeProvider provider = new FakeProvider()) {
      int port = JSON.readTree(out.readLine()).get("port").asInt();
      Map<String, String> env =
          new HashMap<>(Gateway.openAiEnvironment(provider, dir.resolve("data")));
      env.put("BOLO_ADMIN_TOKEN", ADMIN_TOKEN);
      env.put("BOLO_WEBHOOK_HTTP_HOSTS", "127.0.0.1:" + port);
      try (Gateway gateway = Gateway.withRealTime(env)) {
        JsonNode device =
            JSON.readTree(
                gateway
                    .send(
                        new Request.Builder()
                            .url(gateway.url("/admin/api/devices"))
                            .header("Authorization", "Bearer " + ADMIN_TOKEN)
                            .post(
                                RequestBody.create(
                                    "{\"name\":\"meetings\"}", MediaType.get("application/json")))
                            .build())
                    .body());
        String secret = device.get("webhook_secret").asText();
        assertThat(secret).startsWith("whsec_");
        Files.writeString(secretFile, secret);
        // The receiver's line, read as soon as it prints it.
        CompletableFuture<String> heard =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return out.readLine();
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });

        Gateway.Reply accepted =
            gateway.send(
                new Request.Builder()
                    .url(gateway.url("/v1/jobs"))
                    .header("Authorization", "Bearer " + device.get("token").asText())
                    .post(
                        new MultipartBody.Builder()
                            .setType(MultipartBody.FORM)
                            .addFormDataPart(
                                "audio",
                                "meeting.wav",
                                RequestBody.create(
                                    TestAudio.wav(1000, 171), MediaType.get("audio/wav")))
                            .addFormDataPart(
                                "webhook_url", "http://127.0.0.1:" + port + "/hooks/bolo")
                            .build())
                    .build());
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String job = JSON.readTree(accepted.body()).get("id").asText();

        // The delivery loop sends due events by itself; asking it too only makes it sooner.
        Await.until(
            Duration.ofSeconds(60),
            () -> heard.isDone() || gateway.app().jobs().deliverDueWebhooks() < 0,
            () -> "no event reached the receiver");
        JsonNode verdict = JSON.readTree(heard.get(30, TimeUnit.SECONDS));
        assertThat(verdict.path("verified").asBoolean()).as(verdict.toString()).isTrue();
        assertThat(verdict.path("type").asText()).isEqualTo("job.succeeded");
        assertThat(verdict.path("id").asText()).startsWith("msg_");
        assertThat(verdict.path("job").asText()).isEqualTo(job);
        assertThat(verdict.path("text").asText()).startsWith("transcript of ");
        assertThat(provider.calls()).isEqualTo(1);
      }
    } finally {
      receiver.destroyForcibly();
    }
  }
}
