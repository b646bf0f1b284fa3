package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every variable also comes from a file named by {@code <variable>_FILE}, as secrets are mounted.
 */
class SecretFilesTest {

  @TempDir Path dir;

  @Test
  void keysTokensAndUrlsComeFromTheirFiles() throws Exception {
    Path key = Files.writeString(dir.resolve("openai"), "sk-from-a-file\n");
    Path admin = Files.writeString(dir.resolve("admin"), "  admin-token-from-a-file-0123\n");
    Path database = Files.writeString(dir.resolve("db"), "jdbc:sqlite:" + dir.resolve("l.db"));

    ServerConfig config =
        ServerConfig.fromMap(
            Map.of(
                "BOLO_ENGINE", "openai",
                "BOLO_OPENAI_API_KEY_FILE", key.toString(),
                "BOLO_ADMIN_TOKEN_FILE", admin.toString(),
                "BOLO_DATABASE_URL_FILE", database.toString()));

    assertThat(config.openAi().apiKey()).isEqualTo("sk-from-a-file");
    assertThat(config.admin().token()).isEqualTo("admin-token-from-a-file-0123");
    assertThat(config.ledger().jdbcUrl()).isEqualTo("jdbc:sqlite:" + dir.resolve("l.db"));
    assertThat(config.toString()).doesNotContain("sk-from-a-file", "admin-token-from-a-file");
  }

  @Test
  void aVariableAndItsFileTogetherAMissingOrEmptyFileAreRefusedByName() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "\n");

    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of(
                        "BOLO_ADMIN_TOKEN",
                        "admin-token-0123456789",
                        "BOLO_ADMIN_TOKEN_FILE",
                        empty.toString())))
        .hasMessageContaining("BOLO_ADMIN_TOKEN and BOLO_ADMIN_TOKEN_FILE are both set");
    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of("BOLO_ADMIN_TOKEN_FILE", dir.resolve("missing").toString())))
        .hasMessageContaining("BOLO_ADMIN_TOKEN_FILE: cannot read");
    assertThatThrownBy(
            () -> ServerConfig.fromMap(Map.of("BOLO_ADMIN_TOKEN_FILE", empty.toString())))
        .hasMessageContaining("is empty");
  }
}
