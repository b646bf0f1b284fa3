package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.MutableClock;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Devices' webhook signing secrets in the ledger, run against every database it supports: made with
 * the device, rotated with 24 hours in which the old secret signs too, read by the gateway for
 * every event.
 */
abstract class WebhookSecretsContractTest {

  @TempDir Path dataDir;

  final MutableClock clock = MutableClock.at(Instant.parse("2026-12-06T10:00:00Z"));
  private final LedgerTime time = new LedgerTime(clock, System::nanoTime, System::nanoTime);
  private final List<DurableLedger> opened = new ArrayList<>();
  LedgerConfig config;

  /** A JDBC URL of a fresh, empty database for one test; null for the embedded file database. */
  abstract @Nullable String freshDatabaseUrl() throws SQLException;

  @BeforeEach
  void createConfig() throws SQLException {
    config = LedgerConfig.embedded(dataDir).withJdbcUrl(freshDatabaseUrl());
  }

  @AfterEach
  void closeLedgers() {
    opened.forEach(DurableLedger::close);
  }

  private DurableLedger open(LedgerConfig configuration) {
    DurableLedger ledger = Ledger.jdbc(configuration, time);
    opened.add(ledger);
    return ledger;
  }

  private static String secretOf(Enrollment enrollment) {
    assertThat(enrollment).isInstanceOf(Enrollment.Enrolled.class);
    return ((Enrollment.Enrolled) enrollment).webhookSecret();
  }

  @Test
  void anAddedDeviceHasOneSecretInTheStandardWebhooksFormat() {
    DurableLedger ledger = open(config);
    Enrollment enrolled = ledger.add(new Device("server"));
    String secret = secretOf(enrolled);

    assertThat(secret).startsWith("whsec_");
    assertThat(Base64.getDecoder().decode(secret.substring("whsec_".length()))).hasSize(32);
    assertThat(ledger.webhookSecrets("server")).containsExactly(secret);
    assertThat(secretOf(ledger.add(new Device("other")))).isNotEqualTo(secret);
    assertThat(enrolled.toString()).doesNotContain(secret);
  }

  @Test
  void aReplacedSecretSignsBesideTheNewOneForTwentyFourHoursThenStops() {
    DurableLedger ledger = open(config);
    String first = secretOf(ledger.add(new Device("server")));
    clock.advance(Duration.ofMinutes(5));

    String second = ledger.rotateWebhookSecret("server").orElseThrow();

    assertThat(ledger.webhookSecrets("server")).containsExactly(second, first);
    clock.advance(Duration.ofHours(24).minusMillis(1));
    assertThat(ledger.webhookSecrets("server")).containsExactly(second, first);
    clock.advance(Duration.ofMillis(1));
    assertThat(ledger.webhookSecrets("server")).containsExactly(second);
  }

  @Test
  void aSecondRotationWithinTheDayStopsTheOldestAtOnceSoAtMostTwoSign() {
    DurableLedger ledger = open(config);
    String first = secretOf(ledger.add(new Device("server")));
    String second = ledger.rotateWebhookSecret("server").orElseThrow();
    clock.advance(Duration.ofHours(1));

    String third = ledger.rotateWebhookSecret("server").orElseThrow();

    assertThat(ledger.webhookSecrets("server"))
        .containsExactly(third, second)
        .doesNotContain(first);
  }

  @Test
  void aDeviceWithoutASecretGetsItsFirstByRotationAndAnUnknownDeviceNone() {
    DurableLedger ledger =
        open(config.withStaticTokens(Map.of("kiosk", "kiosk-token-0tpuwiKgpyt_FkmbBcCT9Qb6")));

    assertThat(ledger.webhookSecrets("kiosk")).isEmpty();
    String secret = ledger.rotateWebhookSecret("kiosk").orElseThrow();
    assertThat(ledger.webhookSecrets("kiosk")).containsExactly(secret);
    assertThat(ledger.rotateWebhookSecret("nobody")).isEmpty();
    assertThat(ledger.webhookSecrets("nobody")).isEmpty();
  }

  @Test
  void aRevokedDevicesEventsAreSignedByNothing() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("server"));

    ledger.revoke("server");

    assertThat(ledger.webhookSecrets("server")).isEmpty();
  }

  @Test
  void aRotationByAnotherProcessSignsTheNextEventAndSecretsOutliveARestart() {
    DurableLedger gateway = open(config);
    String first = secretOf(gateway.add(new Device("server")));
    DurableLedger operator = open(config);

    String second = operator.rotateWebhookSecret("server").orElseThrow();
    operator.close();

    assertThat(gateway.webhookSecrets("server")).isEqualTo(List.of(second, first));
    gateway.close();
    assertThat(open(config).webhookSecrets("server")).containsExactly(second, first);
  }
}
