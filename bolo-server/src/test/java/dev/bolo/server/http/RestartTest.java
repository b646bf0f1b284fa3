package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.ledger.UsageQuery;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A gateway restarted on the same embedded database keeps devices, quota and usage. */
class RestartTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NOTE_MILLIS = 2_000;

  /** Five notes' worth. */
  private static final Map<String, String> ENV = Map.of("BOLO_TRIAL_SECONDS", "10");

  @TempDir Path dataDir;
  private FakeProvider provider;
  private LedgerProbe operator;

  @BeforeEach
  void start() throws IOException {
    provider = new FakeProvider();
    operator = LedgerProbe.open(dataDir);
  }

  @AfterEach
  void stop() {
    operator.close();
    provider.close();
  }

  @Test
  void devicesQuotaAndUsageSurviveARestart() throws Exception {
    String carol;
    String dave;
    byte[] note = note(1);
    try (Gateway first = Gateway.openAi(provider, dataDir, ENV)) {
      carol = operator.add("carol");
      dave = operator.add("dave");
      operator.ledger().setQuota("carol", 2 * NOTE_MILLIS / 1000);
      operator.ledger().revoke("dave");
      assertThat(upload(first, Gateway.TOKEN_A, note).status()).isEqualTo(200);
      assertThat(deduplicated(upload(first, Gateway.TOKEN_A, note))).isTrue();
      assertThat(upload(first, carol, note(2)).status()).isEqualTo(200);
    }

    try (Gateway second = Gateway.openAi(provider, dataDir, ENV)) {
      // Usage and charges as the first instance left them.
      DeviceUsage alpha = operator.usage("alpha");
      assertThat(alpha.requests()).isEqualTo(2);
      assertThat(alpha.replays()).isEqualTo(1);
      assertThat(alpha.savedMillis()).isEqualTo(NOTE_MILLIS);
      assertThat(operator.chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
      assertThat(operator.chargedMillis("carol")).isEqualTo(NOTE_MILLIS);

      // Devices: the enrolled one authenticates, the revoked one stays revoked.
      assertThat(upload(second, carol, note(3)).status()).isEqualTo(200);
      assertThat(upload(second, dave, note(3)).status()).isEqualTo(401);
      // Quota: carol's own allowance of two notes is spent, including the first instance's charge.
      Gateway.Reply spent = upload(second, carol, note(4));
      assertThat(spent.status()).isEqualTo(402);
      assertThat(JSON.readTree(spent.body()).get("code").asText()).isEqualTo("quota_exhausted");

      // Alpha had one note charged of five: four more distinct notes fit, a fifth does not.
      for (int i = 0; i < 4; i++) {
        assertThat(upload(second, Gateway.TOKEN_A, note(10 + i)).status()).isEqualTo(200);
      }
      assertThat(upload(second, Gateway.TOKEN_A, note(20)).status()).isEqualTo(402);
      assertThat(provider.calls()).isEqualTo(2 + 1 + 4);
      assertThat(operator.chargedMillis("alpha")).isEqualTo(5L * NOTE_MILLIS);
    }
  }

  @Test
  void aResendAfterARestartIsTranscribedAgainButChargedOnce() throws Exception {
    byte[] note = note(30);
    try (Gateway first = Gateway.openAi(provider, dataDir, ENV)) {
      assertThat(upload(first, Gateway.TOKEN_A, note).status()).isEqualTo(200);
    }

    Gateway.Reply resend;
    try (Gateway second = Gateway.openAi(provider, dataDir, ENV)) {
      resend = upload(second, Gateway.TOKEN_A, note);
      // The in-memory store's transcripts died with the first instance.
      assertThat(resend.status()).isEqualTo(200);
      assertThat(deduplicated(resend)).isFalse();
      assertThat(deduplicated(upload(second, Gateway.TOKEN_A, note))).isTrue();
    }

    assertThat(provider.calls()).isEqualTo(2);
    // One piece of work is charged once within the replay window however often it runs, and the
    // charge agrees with the usage report.
    assertThat(operator.chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
    DeviceUsage usage = operator.usage("alpha");
    assertThat(usage.requests()).isEqualTo(3);
    assertThat(usage.uniqueNotes()).isEqualTo(1);
    assertThat(usage.chargedMillis()).isEqualTo(NOTE_MILLIS);
    assertThat(usage.savedMillis()).isEqualTo(NOTE_MILLIS);
    for (DeviceInfo device : operator.ledger().devices()) {
      long logged =
          operator.ledger().usage(new UsageQuery(device.name(), null)).stream()
              .mapToLong(DeviceUsage::chargedMillis)
              .sum();
      assertThat(device.chargedMillis()).as(device.name()).isEqualTo(logged);
    }
  }

  private static Gateway.Reply upload(Gateway gateway, String token, byte[] note)
      throws IOException {
    return gateway.send(gateway.nativeUpload(token, note));
  }

  private static boolean deduplicated(Gateway.Reply reply) throws IOException {
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return JSON.readTree(reply.body()).get("deduplicated").asBoolean();
  }

  private static byte[] note(long seed) {
    return TestAudio.wav(NOTE_MILLIS, seed);
  }
}
