package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {

  @Test
  void defaultsFollowTheContract() {
    ServerConfig config = ServerConfig.fromMap(Map.of());
    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.port()).isEqualTo(8080);
    assertThat(config.engine()).isEqualTo("offline");
    assertThat(config.idempotencyTtl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.store()).isEqualTo("memory");
    assertThat(config.maxUploadBytes()).isEqualTo(26_214_400L);
    assertThat(config.trialSeconds()).isZero();
    assertThat(config.openAiBaseUrl()).isEqualTo("https://api.openai.com/v1");
    assertThat(config.openAiModel()).isEqualTo("whisper-1");
  }

  @Test
  void durationsAcceptShortAndIsoForms() {
    assertThat(ServerConfig.parseDuration("X", "90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(ServerConfig.parseDuration("X", "10m")).isEqualTo(Duration.ofMinutes(10));
    assertThat(ServerConfig.parseDuration("X", "500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(ServerConfig.parseDuration("X", "PT2H")).isEqualTo(Duration.ofHours(2));
    assertThatThrownBy(() -> ServerConfig.parseDuration("BOLO_IDEMPOTENCY_TTL", "ten minutes"))
        .hasMessageContaining("BOLO_IDEMPOTENCY_TTL");
  }

  @Test
  void aVariableWinsOverTheConfigFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bolo.properties");
    Files.writeString(file, "BOLO_PORT=9000\nBOLO_IDEMPOTENCY_TTL=5m\n");
    ServerConfig config =
        ServerConfig.fromMap(Map.of("BOLO_CONFIG", file.toString(), "BOLO_PORT", "9100"));
    assertThat(config.port()).isEqualTo(9100);
    assertThat(config.idempotencyTtl()).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void invalidValuesAreRefusedWithTheVariablesName() {
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_ENGINE", "whisper")))
        .hasMessageContaining("BOLO_ENGINE");
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_PORT", "eighty")))
        .hasMessageContaining("BOLO_PORT");
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_STORE", "redis")))
        .hasMessageContaining("BOLO_REDIS_URL");
  }
}
