package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.engine.EngineKind;
import dev.bolo.server.engine.UpstreamTimeout;
import dev.bolo.server.transcription.NotePieces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServerConfigTest {

  @Test
  void defaultsFollowTheContract() {
    ServerConfig config = ServerConfig.fromMap(Map.of());
    assertThat(config.listen().host()).isEqualTo("127.0.0.1");
    assertThat(config.listen().port()).isEqualTo(8080);
    assertThat(config.listen().drainTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.routing().engines())
        .extracting(e -> e.kind())
        .containsExactly(EngineKind.OFFLINE);
    assertThat(config.store().idempotencyTtl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.store().kind()).isEqualTo(ServerConfig.StoreKind.MEMORY);
    assertThat(config.store().redisTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.limits().maxUploadBytes()).isEqualTo(536_870_912L);
    assertThat(config.ledger().trialSeconds()).isZero();
    assertThat(config.openAi().baseUrl()).isEqualTo("https://api.openai.com/v1");
    assertThat(config.openAi().defaultModel()).isEqualTo("whisper-1");
    assertThat(config.allowedModels()).as("the offline engine has its one model").isEmpty();
    // The offline engine's cap lets it finish its longest note, BOLO_OFFLINE_MAX_SECONDS (1 h).
    assertThat(config.offline().maxSeconds()).isEqualTo(3600);
    assertThat(config.modelAliases().resolve("whisper-1")).isEqualTo("moonshine-tiny-en");
    assertThat(config.deadlines().upstream())
        .isEqualTo(
            new UpstreamTimeout(
                Duration.ofSeconds(120), Duration.ofSeconds(1), Duration.ofMinutes(62)));
    assertThat(config.logLevel()).isEqualTo(ServerConfig.LogLevel.INFO);
    assertThat(config.ledger().usageRetention()).isEqualTo(Duration.ofDays(90));
    // Two runs of one note can be up to the engine cap + a wait margin + a lease apart.
    assertThat(config.ledger().chargeWindow()).isEqualTo(Duration.ofMinutes(62).plusSeconds(30));
  }

  @Test
  void theAdminTokenIsOffByDefaultAndASetOneIsCheckedWithoutBeingShown() {
    assertThat(ServerConfig.fromMap(Map.of()).admin().isEnabled()).isFalse();
    ServerConfig.Admin admin =
        ServerConfig.fromMap(Map.of("BOLO_ADMIN_TOKEN", "  a-long-admin-token-42  ")).admin();
    assertThat(admin.token()).isEqualTo("a-long-admin-token-42");
    assertThat(admin.toString()).doesNotContain("a-long-admin-token-42");

    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_ADMIN_TOKEN", "short-secret")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage("BOLO_ADMIN_TOKEN must be at least 16 characters: it has 12");
    assertThatThrownBy(
            () -> ServerConfig.fromMap(Map.of("BOLO_ADMIN_TOKEN", "a long token with spaces")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageContaining("printable ASCII")
        .message()
        .doesNotContain("with spaces");
  }

  @Test
  void theWebhookReceiversTheOperatorAllowsAreHostAndPortEntriesAndNoneByDefault() {
    assertThat(ServerConfig.fromMap(Map.of()).webhookHttpHosts()).isEmpty();
    assertThat(
            ServerConfig.fromMap(
                    Map.of(
                        "BOLO_WEBHOOK_HTTP_HOSTS",
                        " hooks.internal:8080, [::1]:9000,,hooks.internal:8080 "))
                .webhookHttpHosts())
        .containsExactly("hooks.internal:8080", "[::1]:9000");
    for (String wrong : List.of("hooks.internal", "hooks.internal:0", "a:70000", "http://a:1")) {
      assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_WEBHOOK_HTTP_HOSTS", wrong)))
          .as(wrong)
          .isInstanceOf(ServerConfig.ConfigException.class)
          .hasMessageContaining("BOLO_WEBHOOK_HTTP_HOSTS")
          .hasMessageContaining(wrong);
    }
  }

  @Test
  void theEngineDeadlineGrowsWithTheWholeNoteAndIsCapped() {
    UpstreamTimeout deadline =
        ServerConfig.fromMap(Map.of("BOLO_ENGINE", "openai", "BOLO_OPENAI_API_KEY", "sk-test"))
            .deadlines()
            .upstream();

    assertThat(deadline.timeoutFor(OptionalLong.of(1_000))).isEqualTo(Duration.ofSeconds(121));
    assertThat(deadline.timeoutFor(OptionalLong.of(600_000))).isEqualTo(Duration.ofSeconds(720));
    assertThat(deadline.timeoutFor(OptionalLong.of(3_600_000))).isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void theOfflineEnginesDeadlineCoversItsLongestNote() {
    UpstreamTimeout deadline = ServerConfig.fromMap(Map.of()).deadlines().upstream();

    assertThat(deadline.timeoutFor(OptionalLong.of(3_600_000))).isEqualTo(Duration.ofMinutes(62));
    assertThat(
            ServerConfig.fromMap(Map.of("BOLO_UPSTREAM_TIMEOUT_MAX", "20m"))
                .deadlines()
                .upstream()
                .cap())
        .isEqualTo(Duration.ofMinutes(20));
    // Never below the providers' cap, which every client's resends need.
    assertThat(
            ServerConfig.fromMap(Map.of("BOLO_OFFLINE_MAX_SECONDS", "2"))
                .deadlines()
                .upstream()
                .cap())
        .isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void theDefaultEngineDeadlineOutlastsTheSdksReadTimeoutPlusItsPausesForEveryNoteLength() {
    Deadlines deadlines = ServerConfig.fromMap(Map.of()).deadlines();
    Duration pauses = Duration.ofSeconds(2 + 5 + 10);
    assertThat(deadlines.clientResendPauses()).isEqualTo(pauses);

    for (long noteMs = 0; noteMs <= 4 * 3_600_000; noteMs += 7_000) {
      OptionalLong note = OptionalLong.of(noteMs);
      Duration client = deadlines.clientReadTimeout().timeoutFor(note).plus(pauses);
      assertThat(deadlines.upstream().timeoutFor(note))
          .as("note of %d ms", noteMs)
          .isGreaterThan(client);
    }
  }

  @Test
  void deadlinesThatLetAResendStartTheWorkAgainAreRefusedNamingTheVariable() {
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_UPSTREAM_TIMEOUT", "30s")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageStartingWith("BOLO_UPSTREAM_TIMEOUT must exceed")
        .hasMessageContaining("47s");
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_UPSTREAM_TIMEOUT_MAX", "120s")))
        .hasMessageStartingWith("BOLO_UPSTREAM_TIMEOUT_MAX must exceed")
        .hasMessageContaining("137s");
    // Clients configured for shorter waits allow shorter deadlines.
    assertThat(
            ServerConfig.fromMap(
                    Map.of(
                        "BOLO_UPSTREAM_TIMEOUT", "3s",
                        "BOLO_UPSTREAM_TIMEOUT_MAX", "20s",
                        "BOLO_CLIENT_READ_TIMEOUT", "1s",
                        "BOLO_CLIENT_READ_TIMEOUT_MAX", "5s",
                        "BOLO_CLIENT_RESEND_PAUSES", "200ms,500ms,1s"))
                .deadlines()
                .upstream()
                .base())
        .isEqualTo(Duration.ofSeconds(3));
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
  void aVariableWinsOverTheConfigFileAndEveryVariableWorksFromTheFile(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("bolo.properties");
    Files.writeString(
        file,
        "BOLO_PORT=9000\nBOLO_IDEMPOTENCY_TTL=5m\nBOLO_LOG_LEVEL=warn\nBOLO_ENGINE=openai\n"
            + "BOLO_OPENAI_BASE_URL=http://127.0.0.1:9/v1\nBOLO_OPENAI_MODELS=a, b\n");
    ServerConfig config =
        ServerConfig.fromMap(Map.of("BOLO_CONFIG", file.toString(), "BOLO_PORT", "9100"));
    assertThat(config.listen().port()).isEqualTo(9100);
    assertThat(config.store().idempotencyTtl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.logLevel()).isEqualTo(ServerConfig.LogLevel.WARN);
    assertThat(config.routing().engines())
        .extracting(e -> e.kind())
        .containsExactly(EngineKind.OPENAI);
    assertThat(config.allowedModels()).containsExactly("whisper-1", "a", "b");
  }

  @Test
  void theConfiguredEnginesLimitsAreReplacedOnlyWhereTheOperatorSetsThem() {
    Map<String, String> both =
        Map.of(
            "BOLO_OPENAI_MAX_SECONDS", "600",
            "BOLO_GEMINI_MAX_REQUEST_BYTES", "2097152",
            "BOLO_GEMINI_API_KEY", "AIza-test");

    ServerConfig openAi = ServerConfig.fromMap(withEngine(both, "openai", "BOLO_OPENAI_API_KEY"));
    ServerConfig gemini = ServerConfig.fromMap(withEngine(both, "gemini", null));

    // Each provider's replacements are its own, whichever engine runs.
    for (ServerConfig config : java.util.List.of(openAi, gemini)) {
      assertThat(config.openAi().limits().maxSeconds()).hasValue(600);
      assertThat(config.openAi().limits().maxRequestBytes()).isEmpty();
      assertThat(config.gemini().limits().maxSeconds()).isEmpty();
      assertThat(config.gemini().limits().maxRequestBytes()).hasValue(2_097_152);
    }
    assertThat(ServerConfig.fromMap(Map.of()).pieces()).isEqualTo(NotePieces.Config.defaults());
  }

  private static Map<String, String> withEngine(
      Map<String, String> variables, String engine, @Nullable String key) {
    Map<String, String> all = new java.util.HashMap<>(variables);
    all.put("BOLO_ENGINE", engine);
    if (key != null) {
      all.put(key, "sk-test");
    }
    return all;
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "BOLO_ENGINE=whisper | BOLO_ENGINE must be one of offline, openai, gemini: whisper",
        "BOLO_PORT=eighty | BOLO_PORT must be a whole number: eighty",
        "BOLO_PORT=70000 | BOLO_PORT must be between 0 and 65535: 70000",
        "BOLO_STORE=redis | BOLO_STORE=redis needs BOLO_REDIS_URL",
        "BOLO_REDIS_TIMEOUT=5ms | BOLO_REDIS_TIMEOUT must be between 10ms and 1m: 5ms",
        "BOLO_REDIS_TIMEOUT=2m | BOLO_REDIS_TIMEOUT must be between 10ms and 1m: 2m",
        "BOLO_STORE=disk | BOLO_STORE must be one of memory, redis: disk",
        "BOLO_ENGINE=openai | BOLO_ENGINE=openai with OpenAI's service needs BOLO_OPENAI_API_KEY",
        "BOLO_ENGINE=gemini | BOLO_ENGINE=gemini needs BOLO_GEMINI_API_KEY",
        "BOLO_MAX_CONCURRENT_PIECES=3 | BOLO_MAX_CONCURRENT_PIECES must be at least BOLO_MAX_PIECES_PER_NOTE: 3",
        "BOLO_OPENAI_MAX_REQUEST_BYTES=1000 | BOLO_OPENAI_MAX_REQUEST_BYTES must be between 1048576 and 9223372036854775807: 1000",
        "BOLO_LOG_LEVEL=loud | BOLO_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR: LOUD",
        "BOLO_DRAIN_TIMEOUT=0s | BOLO_DRAIN_TIMEOUT must be positive: 0s",
        "BOLO_TRIAL_SECONDS=-1 | BOLO_TRIAL_SECONDS must be between 0 and 9223372036854775: -1",
        "BOLO_DATABASE_URL=jdbc:mysql://x | BOLO_DATABASE_URL must be jdbc:postgresql:… or jdbc:sqlite:…: jdbc:mysql://x",
        "BOLO_USAGE_RETENTION=soon | BOLO_USAGE_RETENTION must be a duration like 10m, 90s, 500ms or PT10M: soon",
        "BOLO_USAGE_RETENTION=0d | BOLO_USAGE_RETENTION must be positive: 0d",
        "BOLO_USAGE_RETENTION=12h | BOLO_USAGE_RETENTION must be between 1d and 36500d: 12h",
        "BOLO_USAGE_RETENTION=999999999999d | BOLO_USAGE_RETENTION must be between 1d and 36500d: 999999999999d",
      })
  void aBadValueIsOneLineNamingTheVariable(String assignment, String message) {
    String[] parts = assignment.split("=", 2);
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of(parts[0], parts[1])))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage(message)
        .hasNoCause();
  }

  @Test
  void usageRetentionAcceptsDurationsAndMustOutlastTheChargeWindow() {
    assertThat(
            ServerConfig.fromMap(Map.of("BOLO_USAGE_RETENTION", "30d")).ledger().usageRetention())
        .isEqualTo(Duration.ofDays(30));
    assertThat(
            ServerConfig.fromMap(Map.of("BOLO_USAGE_RETENTION", "P2D")).ledger().usageRetention())
        .isEqualTo(Duration.ofDays(2));
    // A charge rolled up inside the window could be charged again: refused at start.
    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of("BOLO_USAGE_RETENTION", "1d", "BOLO_IDEMPOTENCY_TTL", "2d")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage(
            "BOLO_USAGE_RETENTION must be at least the charge window (172800s, from"
                + " BOLO_IDEMPOTENCY_TTL and the engine deadline): 1d")
        .hasNoCause();
    // Both long: the ledger's own check sees the final pair, not the default retention.
    assertThat(
            ServerConfig.fromMap(
                    Map.of("BOLO_USAGE_RETENTION", "400d", "BOLO_IDEMPOTENCY_TTL", "200d"))
                .ledger()
                .chargeWindow())
        .isEqualTo(Duration.ofDays(200));
  }

  @Test
  void aLocalOpenAiCompatibleServerNeedsNoKey() {
    ServerConfig config =
        ServerConfig.fromMap(
            Map.of("BOLO_ENGINE", "openai", "BOLO_OPENAI_BASE_URL", "http://127.0.0.1:8081/v1"));
    assertThat(config.openAi().apiKey()).isNull();
  }

  @Test
  void keysNeverAppearInTheConfigurationsText() {
    ServerConfig config =
        ServerConfig.fromMap(
            Map.of(
                "BOLO_OPENAI_API_KEY", "sk-secret-123",
                "BOLO_GEMINI_API_KEY", "AIza-secret-456",
                "BOLO_DEVICE_TOKENS", "kiosk=token-secret-789-0tpuwiKgpyt_FkmbBcCT9Qb6"));
    assertThat(config.toString())
        .doesNotContain("sk-secret-123", "AIza-secret-456", "token-secret-789")
        .contains("kiosk");
  }
}
