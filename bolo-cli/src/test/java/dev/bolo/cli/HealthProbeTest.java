package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HealthProbeTest {

  @Test
  void aGatewayOnEveryAddressIsAskedOnLoopbackAtItsPort() {
    assertThat(HealthProbe.readinessUri(Map.of("BOLO_HOST", "0.0.0.0", "BOLO_PORT", "9090")))
        .hasToString("http://127.0.0.1:9090/readyz");
    assertThat(HealthProbe.readinessUri(Map.of("BOLO_HOST", "::")))
        .hasToString("http://127.0.0.1:8080/readyz");
  }

  @Test
  void aGatewayOnOneAddressIsAskedThereAndIpv6AddressesAreBracketed() {
    assertThat(HealthProbe.readinessUri(Map.of("BOLO_HOST", "10.0.0.7")))
        .hasToString("http://10.0.0.7:8080/readyz");
    assertThat(HealthProbe.readinessUri(Map.of("BOLO_HOST", "fd00::7", "BOLO_PORT", "81")))
        .hasToString("http://[fd00::7]:81/readyz");
  }

  @Test
  void withNothingConfiguredItAsksTheGatewaysDefaultAddress() {
    assertThat(HealthProbe.readinessUri(Map.of())).hasToString("http://127.0.0.1:8080/readyz");
  }
}
