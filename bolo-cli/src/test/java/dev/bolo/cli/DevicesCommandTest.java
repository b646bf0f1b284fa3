package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.testing.SystemTime;
import java.nio.file.Path;
import java.util.List;
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
    return Ledger.jdbc(ServerConfig.fromMap(env).ledger(), SystemTime.ofLedger());
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
  void addPrintsTheWebhookSecretBeforeTheTokenAndRotateSecretPrintsANewOneBothSigning() {
    CommandRun added = devices("add", "phone");
    List<String> lines = added.outLines();
    String secret = lines.get(lines.size() - 3);

    CommandRun rotated = devices("rotate-secret", "phone");

    assertThat(secret).startsWith("whsec_");
    assertThat(rotated.exitCode()).isZero();
    String next = rotated.outLines().getLast();
    assertThat(next).startsWith("whsec_").isNotEqualTo(secret);
    try (DurableLedger ledger = ledger()) {
      assertThat(ledger.webhookSecrets("phone")).containsExactly(next, secret);
    }
    assertThat(devices("list").out()).doesNotContain("whsec_");
    CommandRun unknown = devices("rotate-secret", "nobody");
    assertThat(unknown.exitCode()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(unknown.err()).contains("no device named nobody");
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
  void everyCommandNamesTheLedgerItOpensAndOnlyAddMakesOne() {
    Path ledger = dataDir.resolve("bolo-ledger.db").toAbsolutePath();

    CommandRun first = devices("add", "phone");
    CommandRun list = devices("list");

    assertThat(first.errLines()).containsExactly("ledger: " + ledger + " (new)");
    assertThat(list.errLines()).containsExactly("ledger: " + ledger);
  }

  @Test
  void listWhereThereIsNoLedgerSaysWhereItLookedAndHowToPointAtOneAndMakesNothing(
      @TempDir Path elsewhere) {
    Path looked = elsewhere.resolve("bolo-data");
    env = Map.of("BOLO_DATA_DIR", looked.toString());

    for (String[] args :
        List.of(
            new String[] {"list"},
            new String[] {"revoke", "phone"},
            new String[] {"quota", "phone", "5"})) {
      CommandRun run = devices(args);

      assertThat(run.exitCode()).as("%s", List.of(args)).isEqualTo(ExitCode.FAILED.code());
      assertThat(run.errLines())
          .singleElement()
          .asString()
          .startsWith(
              "bolo: no ledger at " + looked.resolve("bolo-ledger.db") + " (from BOLO_DATA_DIR)")
          .contains("--data-dir DIR or BOLO_DATA_DIR=DIR");
      assertThat(run.out()).isEmpty();
    }
    assertThat(looked).doesNotExist();
  }

  @Test
  void dataDirPointsAtALedgerWhereverItIsGivenAndWinsOverTheVariable(@TempDir Path elsewhere) {
    devices("add", "phone");
    Path ours = dataDir;
    env = Map.of("BOLO_DATA_DIR", elsewhere.resolve("bolo-data").toString());

    CommandRun after = devices("list", "--data-dir", ours.toString());
    CommandRun before = devices("--data-dir", ours.toString(), "list");

    assertThat(after.exitCode()).as(after.err()).isZero();
    assertThat(after.outLines()).anySatisfy(line -> assertThat(line).startsWith("phone"));
    assertThat(before.out()).isEqualTo(after.out());
    assertThat(elsewhere.resolve("bolo-data")).doesNotExist();
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

  /**
   * A quota says what it is: the trial's seconds when BOLO_TRIAL_SECONDS gives some, "unlimited"
   * when it is 0 (no trial at all), and the device's own quota without a word of the trial.
   */
  @Test
  void aQuotaIsNamedTrialOnlyWhenATrialLimitsIt() {
    devices("add", "phone");
    devices("add", "kiosk");
    devices("quota", "kiosk", "60");
    CommandRun withTrial = devices("list");
    env = Map.of("BOLO_DATA_DIR", dataDir.toString(), "BOLO_TRIAL_SECONDS", "0");
    CommandRun withoutTrial = devices("list");

    assertThat(withTrial.outLines())
        .anySatisfy(line -> assertThat(line).startsWith("phone").contains("300.0 s (trial)"))
        .anySatisfy(
            line ->
                assertThat(line).startsWith("kiosk").contains("60.0 s ").doesNotContain("trial"));
    assertThat(withoutTrial.outLines())
        .anySatisfy(
            line ->
                assertThat(line).startsWith("phone").contains("unlimited").doesNotContain("trial"));
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
    devices("add", "phone");
    env =
        Map.of(
            "BOLO_DATA_DIR",
            dataDir.toString(),
            "BOLO_DEVICE_TOKENS",
            "kiosk=kiosk-secret-token-0tpuwiKgpyt_FkmbBcCT9Qb6");

    CommandRun list = devices("list");

    assertThat(list.outLines())
        .anySatisfy(
            line ->
                assertThat(line).startsWith("kiosk").contains("unlimited", "BOLO_DEVICE_TOKENS"));
    assertThat(list.out()).doesNotContain("kiosk-secret-token-0tpuwiKgpyt_FkmbBcCT9Qb6");
  }

  @Test
  void aMalformedEnvironmentIsAConfigurationErrorReportedInOneLine() {
    env = Map.of("BOLO_DATA_DIR", dataDir.toString(), "BOLO_TRIAL_SECONDS", "lots");

    CommandRun run = devices("list");

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).isEqualTo("bolo: BOLO_TRIAL_SECONDS must be a whole number: lots\n");
  }
}
