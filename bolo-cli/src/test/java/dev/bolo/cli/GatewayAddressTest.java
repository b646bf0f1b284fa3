package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayAddressTest {

  @Test
  void hostOrPortAloneTakesTheOthersDefault() {
    assertThat(GatewayAddress.of(null, Map.of("BOLO_PORT", "27080")))
        .isEqualTo(new GatewayAddress("http://127.0.0.1:27080", "BOLO_PORT"));
    assertThat(GatewayAddress.of(null, Map.of("BOLO_HOST", "10.0.0.7")))
        .isEqualTo(new GatewayAddress("http://10.0.0.7:8080", "BOLO_HOST"));
    assertThat(GatewayAddress.of(null, Map.of("BOLO_HOST", "fd00::7", "BOLO_PORT", "81")))
        .isEqualTo(new GatewayAddress("http://[fd00::7]:81", "BOLO_HOST and BOLO_PORT"));
  }

  @Test
  void everyAddressIsReachedOnLoopback() {
    for (String any : new String[] {"0.0.0.0", "::", "[::]"}) {
      assertThat(GatewayAddress.of(null, Map.of("BOLO_HOST", any)).url())
          .isEqualTo("http://127.0.0.1:8080");
    }
  }

  @Test
  void theOptionThenBoloServerThenHostAndPortThenTheDefault() {
    Map<String, String> all =
        Map.of("BOLO_SERVER", "http://gateway:9000", "BOLO_HOST", "h", "BOLO_PORT", "1");

    assertThat(GatewayAddress.of("http://option:1", all))
        .isEqualTo(new GatewayAddress("http://option:1", "--server"));
    assertThat(GatewayAddress.of(null, all))
        .isEqualTo(new GatewayAddress("http://gateway:9000", "BOLO_SERVER"));
    assertThat(GatewayAddress.of(" ", Map.of("BOLO_SERVER", " ", "BOLO_HOST", " ")))
        .isEqualTo(new GatewayAddress("http://127.0.0.1:8080", "the default"));
  }

  @Test
  void aPortNoClientCanConnectToIsRefusedWithItsValue() {
    for (String port : new String[] {"0", "65536", "http", "-1"}) {
      assertThatThrownBy(() -> GatewayAddress.of(null, Map.of("BOLO_PORT", port)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageEndingWith(": " + port);
    }
  }
}
