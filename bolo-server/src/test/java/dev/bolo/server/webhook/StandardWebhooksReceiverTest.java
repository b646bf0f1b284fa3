package dev.bolo.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.webhook.WebhookSender.Delivery;
import dev.bolo.server.webhook.WebhookSender.Message;
import dev.bolo.server.webhook.WebhookSender.Outcome;
import dev.bolo.testkit.NodePackage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A receiver nobody here wrote verifies what the sender sends: a Node server on loopback that
 * checks each request with the Standard Webhooks reference library ({@code standardwebhooks} on
 * npm), as an integrator's receiver would. Its clock is the machine's, so the events carry the
 * machine's time.
 */
class StandardWebhooksReceiverTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Clock WALL = Clock.systemUTC();

  private static NodePackage receiverPackage;

  @TempDir Path scratch;

  @BeforeAll
  static void install() throws Exception {
    receiverPackage =
        NodePackage.install("node-webhooks", "standardwebhooks/package.json", "receiver.mjs");
  }

  @Test
  void theReferenceLibraryAcceptsTheSignatureOfTheOldSecretDuringARotationAndRefusesAnother()
      throws Exception {
    String old = WebhookSignatureTest.SECRET;
    String replacement = newSecret();
    byte[] body =
        ("{\"type\":\"job.succeeded\",\"timestamp\":\"2026-12-06T16:00:00Z\","
                + "\"data\":{\"id\":\"job_1\",\"status\":\"succeeded\",\"result\":{\"text\":\"héllo\"}}}")
            .getBytes(StandardCharsets.UTF_8);
    Process receiver =
        receiverPackage.start(
            "receiver.mjs", Map.of("WEBHOOK_SECRET", old, "EXPECTED", "2"), scratch);
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8))) {
      int port = JSON.readTree(out.readLine()).get("port").asInt();
      String hostPort = "receiver.test:" + port;
      WebhookSender sender =
          WebhookCalls.sender(
              List.of(hostPort),
              host -> List.of(InetAddress.getByName("127.0.0.1")),
              Duration.ofSeconds(30));
      String url = "http://" + hostPort + "/hooks/bolo";

      Delivery rotating =
          sender.send(
              url, new Message("msg_rotation", WALL.instant(), body, List.of(replacement, old)));
      Delivery otherSecret =
          sender.send(url, new Message("msg_other", WALL.instant(), body, List.of(replacement)));

      assertThat(rotating.outcome()).as(rotating.detail()).isEqualTo(Outcome.DELIVERED);
      assertThat(otherSecret.outcome()).isEqualTo(Outcome.REJECTED);
      assertThat(otherSecret.status()).isEqualTo(400);
      assertThat(receiver.waitFor(30, TimeUnit.SECONDS)).as("the receiver finished").isTrue();
      JsonNode first = JSON.readTree(out.readLine());
      JsonNode second = JSON.readTree(out.readLine());
      assertThat(first.path("verified").asBoolean()).as(first.toString()).isTrue();
      assertThat(first.path("type").asText()).isEqualTo("job.succeeded");
      assertThat(first.path("id").asText()).isEqualTo("msg_rotation");
      assertThat(second.path("verified").asBoolean()).isFalse();
      assertThat(second.path("reason").asText()).contains("No matching signature");
    } finally {
      receiver.destroyForcibly();
    }
  }

  private static String newSecret() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }
}
