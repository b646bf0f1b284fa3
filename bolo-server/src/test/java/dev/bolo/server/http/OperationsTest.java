package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.util.Map;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OperationsTest {

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  @Test
  void healthReadinessAndMetricsAreServed() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    assertThat(gateway.send(get(gateway, "/healthz")).status()).isEqualTo(200);
    Gateway.Reply ready = gateway.send(get(gateway, "/readyz"));
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.body())
        .contains("\"engine\":\"ready\"", "\"store\":\"ready\"", "\"ledger\":\"ready\"");

    byte[] note = TestAudio.wav(300, 1);
    gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
    gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
    Gateway.Reply metrics = gateway.send(get(gateway, "/metrics"));
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("bolo_transcriptions_total{outcome=\"ok\",replay=\"cached\"} 1.0")
        .contains("bolo_transcriptions_total{outcome=\"ok\",replay=\"none\"} 1.0")
        .contains("bolo_upstream_calls_total{engine=\"openai\",result=\"transcribed\"} 1.0");
  }

  private static Request get(Gateway gateway, String path) {
    return new Request.Builder().url(gateway.url(path)).build();
  }
}
