package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LedgerConfigTest {

  private static LedgerConfig fromEnvironment(Map<String, String> env) {
    return ServerConfig.fromMap(env).ledger();
  }

  @Test
  void anEmptyEnvironmentMeansTheEmbeddedDatabaseWithoutLimits() {
    LedgerConfig config = fromEnvironment(Map.of());

    assertThat(config.jdbcUrl()).isNull();
    assertThat(config.effectiveJdbcUrl())
        .isEqualTo("jdbc:sqlite:" + Path.of("bolo-data", "bolo-ledger.db").toAbsolutePath());
    assertThat(config.staticTokens()).isEmpty();
    assertThat(config.trialSeconds()).isZero();
    assertThat(config.requestsPerMinute()).isZero();
  }

  @Test
  void theEnvironmentNamesDatabaseDevicesQuotaAndRateLimit() {
    LedgerConfig config =
        fromEnvironment(
            Map.of(
                "BOLO_DATABASE_URL", "jdbc:postgresql://db:5432/bolo",
                "BOLO_DATA_DIR", "/var/lib/bolo",
                "BOLO_DEVICE_TOKENS",
                    " phone=phone-zOq7BSJSflK4dbxCBwpvqeVz , tablet=d=e-sRngh2xm_5Ber9NPzmHTFBSp,",
                "BOLO_TRIAL_SECONDS", "600",
                "BOLO_RATE_LIMIT_PER_MINUTE", "30"));

    assertThat(config.effectiveJdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/bolo");
    assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/bolo"));
    assertThat(config.staticTokens())
        .isEqualTo(
            Map.of(
                "phone",
                "phone-zOq7BSJSflK4dbxCBwpvqeVz",
                "tablet",
                "d=e-sRngh2xm_5Ber9NPzmHTFBSp"));
    assertThat(config.trialSeconds()).isEqualTo(600);
    assertThat(config.requestsPerMinute()).isEqualTo(30);
  }

  @Test
  void malformedValuesAreReportedByVariableWithoutTheToken() {
    assertThatThrownBy(() -> fromEnvironment(Map.of("BOLO_TRIAL_SECONDS", "-1")))
        .hasMessageContaining("BOLO_TRIAL_SECONDS");
    assertThatThrownBy(() -> LedgerConfig.parseDeviceTokens("bad name=secret"))
        .hasMessageContaining("bad name")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(
            () ->
                LedgerConfig.parseDeviceTokens(
                    "phone=phone-zOq7BSJSflK4dbxCBwpvqeVz,phone=phone-zOq7BSJSflK4dbxCBwpvqeVz"))
        .hasMessage("BOLO_DEVICE_TOKENS names a device twice: phone");
  }

  @Test
  void aStaticTokenUnder128BitsStopsTheStartNamingItsDeviceAndNotItsToken() {
    assertThatThrownBy(
            () ->
                fromEnvironment(
                    Map.of(
                        "BOLO_DEVICE_TOKENS",
                        "phone=phone-zOq7BSJSflK4dbxCBwpvqeVz,kiosk=token-alpha-0123456789")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage(
            "BOLO_DEVICE_TOKENS: the token of device kiosk is too easy to guess (about 115 bits,"
                + " at least 128 needed): use 32 or more random characters, e.g. from openssl"
                + " rand -hex 24");
    assertThatThrownBy(
            () -> LedgerConfig.parseDeviceTokens("kiosk=0123456789abcdef0123456789abcde"))
        .hasMessageContaining("device kiosk")
        .hasMessageNotContaining("0123456789abcdef");
    assertThat(LedgerConfig.parseDeviceTokens("kiosk=0123456789abcdef0123456789abcdef"))
        .containsKey("kiosk");
  }

  @Test
  void aUsageRetentionUnderADayOrUnderTheChargeWindowIsRefused() {
    LedgerConfig config = LedgerConfig.embedded(Path.of("bolo-data"));

    assertThat(config.usageRetention()).isEqualTo(java.time.Duration.ofDays(90));
    assertThatThrownBy(() -> config.withUsageRetention(java.time.Duration.ofHours(23)))
        .hasMessage("usageRetention must be between 1 and 36500 days: PT23H");
    assertThatThrownBy(() -> config.withChargeWindow(java.time.Duration.ofDays(91)))
        .hasMessage("usageRetention must be at least the charge window PT2184H: PT2160H");
  }

  @Test
  void describingTheConfigShowsNoTokenOrPassword() {
    LedgerConfig config =
        LedgerConfig.embedded(Path.of("data"))
            .withJdbcUrl("jdbc:postgresql://db/bolo?user=bolo&password=hunter2")
            .withStaticTokens(Map.of("phone", "s3cret-token"));

    assertThat(config.toString())
        .contains("jdbc:postgresql://db/bolo?...", "phone")
        .doesNotContain("hunter2", "s3cret-token");
  }
}
