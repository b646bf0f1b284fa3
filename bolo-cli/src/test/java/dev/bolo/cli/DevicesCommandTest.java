package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ServerConfig;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevicesCommandTest {

  @TempDir Path dataDir;
  private Map<String, String> env;

  @BeforeEach
  void environment() {
    env = Map.of("BOLO_DATA_DIR", dataDir.toString(), "BOLO_TRIAL_SECONDS", "300");
  }

  private CommandRun devices(String... args) {
    return CommandRun.of(new DevicesCommand(env), args);
  }

  private DurableLedger ledger() {
    return Ledger.jdbc(ServerConfig.fromMap(env).ledger());
  }

  @Test
  void addPrintsANewTokenAsTheLastLineAndTheServerAcceptsIt() {
    CommandRun run = devices("add", "phone");

    assertThat(run.exitCode()).isZero();
    String token = run.outLines().getLast();
    try (DurableLedger ledger = ledger()) {
      assertThat(ledger.authenticate(token)).contains(new Device("phone"));
    }
  }

  @Test
  void aTakenNameIsRefusedAndAMalformedOneIsAUsageError() {
    devices("add", "phone");

    CommandRun taken = devices("add", "phone");
    CommandRun malformed = devices("add", "my phone");

    assertThat(taken.exitCode()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(taken.errLines()).last().isEqualTo("bolo: a device named phone exists already");
    assertThat(malformed.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(malformed.errLines())
        .containsExactly(
            "bolo devices add: a device name is 1-64 letters, digits, '.', '_' or '-': my phone",
            "see `bolo devices add --help`");
  }

  @Test
  void revokeStopsTheTokenAndListShowsIt() {
    String token = devices("add", "phone").outLines().getLast();
    devices("add", "tablet");

    CommandRun revoke = devices("revoke", "phone");
    CommandRun list = devices("list");

    assertThat(revoke.exitCode()).isZero();
    try (DurableLedger ledger = ledger()) {
      assertThat(ledger.authenticate(token)).isEmpty();
    }
    assertThat(list.outLines())
        .hasSize(3)
        .anySatisfy(line -> assertThat(line).startsWith("phone").contains("revoked"))
        .anySatisfy(line -> assertThat(line).startsWith("tablet").contains("active", "300.0 s"));
    assertThat(list.out()).doesNotContain(token);
  }

  @Test
  void quotaReplacesTheTrialForOneDevice() {
    devices("add", "phone");

    CommandRun run = devices("quota", "phone", "60");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("60.0 s");
    try (DurableLedger ledger = ledger()) {
      assertThat(ledger.devices())
          .singleElement()
          .returns(60_000L, DeviceInfo::quotaMillis)
          .returns(60_000L, DeviceInfo::quotaOverrideMillis);
    }
  }

  @Test
  void unknownDevicesAreRefused() {
    devices("add", "phone");

    CommandRun revoke = devices("revoke", "ghost");
    CommandRun quota = devices("quota", "ghost", "5");

    assertThat(revoke.exitCode()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(revoke.errLines()).last().isEqualTo("bolo: no device named ghost");
    assertThat(quota.exitCode()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(quota.errLines()).last().isEqualTo("bolo: no device named ghost");
  }

  @Test
  void aNegativeQuotaIsAUsageError() {
    CommandRun run = devices("quota", "phone", "-5");

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.errLines())
        .containsExactly(
            "bolo devices quota: SECONDS must be >= 0 (0 = unlimited): -5",
            "see `bolo devices quota --help`");
  }

  @Test
  void configuredDevicesAreListedWithTheirOrigin() {
    env =
        Map.of(
            "BOLO_DATA_DIR", dataDir.toString(), "BOLO_DEVICE_TOKENS", "kiosk=kiosk-secret-token");

    CommandRun list = devices("list");

    assertThat(list.outLines())
        .anySatisfy(
            line ->
                assertThat(line).startsWith("kiosk").contains("unlimited", "BOLO_DEVICE_TOKENS"));
    assertThat(list.out()).doesNotContain("kiosk-secret-token");
  }

  @Test
  void aMalformedEnvironmentIsAConfigurationErrorReportedInOneLine() {
    env = Map.of("BOLO_DATA_DIR", dataDir.toString(), "BOLO_TRIAL_SECONDS", "lots");

    CommandRun run = devices("list");

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).isEqualTo("bolo: BOLO_TRIAL_SECONDS must be a whole number: lots\n");
  }
}
