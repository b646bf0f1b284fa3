package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The per-device rate limit on a running gateway, on its injected ticker. */
class RateLimitTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_RATE_LIMIT_PER_MINUTE", "2"));

  private Gateway gateway() {
    return fixture.gateway();
  }

  private FakeProvider provider() {
    return fixture.provider();
  }

  @Test
  void aDeviceOverItsRateGets429WithRetryAfterWhileOthersAreServed() throws Exception {
    assertThat(upload(Gateway.TOKEN_A, 1).status()).isEqualTo(200);
    assertThat(upload(Gateway.TOKEN_A, 2).status()).isEqualTo(200);

    Gateway.Reply limited = upload(Gateway.TOKEN_A, 3);

    assertThat(limited.status()).isEqualTo(429);
    assertThat(JSON.readTree(limited.body()).get("code").asText()).isEqualTo("rate_limited");
    // Two a minute: the next request's token arrives 30 s after the bucket ran dry.
    assertThat(limited.retryAfter()).isEqualTo("30");
    assertThat(provider().calls()).isEqualTo(2);
    assertThat(upload(Gateway.TOKEN_B, 3).status()).isEqualTo(200);
    assertThat(provider().calls()).isEqualTo(3);
    try (LedgerProbe ledger = LedgerProbe.open(fixture.dataDir(), gateway())) {
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(2 * 1000);
    }
  }

  @Test
  void aLimitedDeviceIsServedAgainAfterTheRetryAfter() throws Exception {
    upload(Gateway.TOKEN_A, 1);
    upload(Gateway.TOKEN_A, 2);
    assertThat(upload(Gateway.TOKEN_A, 3).status()).isEqualTo(429);

    gateway().advance(Duration.ofSeconds(29));
    assertThat(upload(Gateway.TOKEN_A, 3).status()).isEqualTo(429);
    gateway().advance(Duration.ofSeconds(30));

    assertThat(upload(Gateway.TOKEN_A, 3).status()).isEqualTo(200);
  }

  @Test
  void resendsCountAgainstTheRateLikeAnyRequest() throws Exception {
    assertThat(upload(Gateway.TOKEN_A, 1).status()).isEqualTo(200);
    assertThat(upload(Gateway.TOKEN_A, 1).status()).isEqualTo(200);

    assertThat(upload(Gateway.TOKEN_A, 1).status()).isEqualTo(429);
    assertThat(provider().calls()).isEqualTo(1);
  }

  private Gateway.Reply upload(String token, long seed) throws IOException {
    return gateway().send(gateway().nativeUpload(token, TestAudio.wav(1000, seed)));
  }
}
