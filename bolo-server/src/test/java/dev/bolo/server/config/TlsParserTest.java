package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.tls.TlsConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsParserTest {

  @TempDir Path dir;

  @Test
  void tlsIsOffByDefaultAndOnMeansTheGatewaysOwnAuthorityUnlessFilesAreNamed() throws Exception {
    assertThat(ServerConfig.fromMap(Map.of()).tls()).isEqualTo(TlsConfig.off());

    TlsConfig own =
        ServerConfig.fromMap(
                Map.of("BOLO_TLS", "on", "BOLO_TLS_NAMES", " bolo.home.arpa, 10.0.0.7 ,,[fd00::7]"))
            .tls();
    assertThat(own.usesLocalAuthority()).isTrue();
    assertThat(own.names()).containsExactly("bolo.home.arpa", "10.0.0.7", "[fd00::7]");

    Path certificate = Files.writeString(dir.resolve("server.crt"), "pem");
    Path key = Files.writeString(dir.resolve("server.key"), "pem");
    TlsConfig files =
        ServerConfig.fromMap(
                Map.of(
                    "BOLO_TLS",
                    "on",
                    "BOLO_TLS_CERT",
                    certificate.toString(),
                    "BOLO_TLS_KEY",
                    key.toString()))
            .tls();
    assertThat(files).isEqualTo(TlsConfig.files(certificate, key));
    assertThat(files.usesLocalAuthority()).isFalse();
  }

  @Test
  void eachMistakeIsOneLineNamingTheVariable() throws Exception {
    Path certificate = Files.writeString(dir.resolve("server.crt"), "pem");
    String file = certificate.toString();

    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_TLS", "yes")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageContaining("BOLO_TLS");
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_TLS", "on", "BOLO_TLS_CERT", file)))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage("BOLO_TLS_CERT and BOLO_TLS_KEY go together: set both or neither");
    assertThatThrownBy(
            () -> ServerConfig.fromMap(Map.of("BOLO_TLS_CERT", file, "BOLO_TLS_KEY", file)))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage(
            "BOLO_TLS_CERT is set but BOLO_TLS is off: set BOLO_TLS=on (or run bolo serve --tls)");
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_TLS_NAMES", "bolo.lan")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageStartingWith("BOLO_TLS_NAMES is set but BOLO_TLS is off");
    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of("BOLO_TLS", "on", "BOLO_TLS_CERT", dir.resolve("none").toString())))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageStartingWith("BOLO_TLS_CERT: cannot read the file");
    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of("BOLO_TLS", "on", "BOLO_TLS_NAMES", "bolo.lan,not a name")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage("BOLO_TLS_NAMES: not a host name or an address: not a name");
    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of(
                        "BOLO_TLS",
                        "on",
                        "BOLO_TLS_CERT",
                        file,
                        "BOLO_TLS_KEY",
                        file,
                        "BOLO_TLS_NAMES",
                        "bolo.lan")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageStartingWith("BOLO_TLS_NAMES is for the gateway's own certificate");
    assertThat(TlsConfig.off().names()).isEqualTo(List.of());
  }
}
