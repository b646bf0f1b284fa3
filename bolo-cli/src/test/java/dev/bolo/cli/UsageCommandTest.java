package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerTime;
import dev.bolo.server.ledger.Reservation;
import dev.bolo.server.ledger.UsageRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageCommandTest {

  private static final ZoneId ZONE = ZoneId.of("Asia/Kolkata");

  @TempDir Path dataDir;
  private Map<String, String> env;

  @BeforeEach
  void seedUsage() {
    env = Map.of("BOLO_DATA_DIR", dataDir.toString());
    Instant day1 = Instant.parse("2026-11-30T12:00:00Z");
    Instant day2 = Instant.parse("2026-12-01T12:00:00Z");
    // What was charged comes from the ledger's charge log, at the time of each charge.
    try (DurableLedger ledger = ledgerAt(day1)) {
      ledger.add(new Device("phone"));
      ledger.add(new Device("tablet"));
      charge(ledger, "phone", "1", 10_000);
    }
    try (DurableLedger ledger = ledgerAt(day2)) {
      charge(ledger, "phone", "2", 5_000);
      charge(ledger, "tablet", "3", 2_500);
    }
    try (DurableLedger ledger = ledgerAt(day2)) {
      ledger.record(answer("phone", "1", 10_000, false, day1));
      ledger.record(answer("phone", "1", 10_000, true, day2));
      ledger.record(answer("phone", "1", 10_000, true, day2));
      ledger.record(answer("phone", "2", 5_000, false, day2));
      ledger.record(answer("tablet", "3", 2_500, false, day2));
      // A note the engine refused: a request answered with an error, not a transcript.
      ledger.record(
          new UsageRecord(
              "phone",
              "key-" + "4".repeat(64),
              "4".repeat(64),
              3_000,
              true,
              "offline",
              "upstream_rejected",
              false,
              "r",
              day2));
    }
  }

  private DurableLedger ledgerAt(Instant now) {
    return Ledger.jdbc(
        ServerConfig.fromMap(env).ledger(),
        new LedgerTime(Clock.fixed(now, ZoneOffset.UTC), System::nanoTime, System::nanoTime));
  }

  private static void charge(DurableLedger ledger, String device, String note, long millis) {
    Reservation.Granted hold =
        (Reservation.Granted)
            ledger.reserve(
                new Device(device), "key-" + note.repeat(64), millis, Duration.ofMinutes(5));
    ledger.commit(hold, millis);
  }

  private static UsageRecord answer(
      String device, String note, long millis, boolean replayed, Instant at) {
    String hash = note.repeat(64);
    return new UsageRecord(
        device, "key-" + hash, hash, millis, true, "offline", "ok", replayed, "r", at);
  }

  private CommandRun usage(String... args) {
    return CommandRun.of(new UsageCommand(env, ZONE), args);
  }

  @Test
  void theTableShowsEachDeviceAndATotal() {
    CommandRun run = usage();

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly(
            "DEVICE                    REQUESTS  TRANSCRIBED  REPLAYS  FAILED  UNIQUE  REDUNDANCY  CHARGED_S    SAVED_S",
            "phone                            5            2        2       1       2       40.0%       15.0       20.0",
            "tablet                           1            1        0       0       1        0.0%        2.5        0.0",
            "TOTAL                            6            3        2       1       3       33.3%       17.5       20.0");
  }

  /**
   * Each request is in one column: transcribed by its own work, answered from other work (a
   * replay), or answered with an error; the distinct notes are another count, of notes.
   */
  @Test
  void everyRequestIsInOneColumnAndTheColumnsAddUpToTheRequests() throws Exception {
    JsonNode json = new ObjectMapper().readTree(usage("--json").out());

    for (JsonNode row : json.get("devices")) {
      assertThat(
              row.get("transcribed").asLong()
                  + row.get("replays").asLong()
                  + row.get("failed").asLong())
          .as(row.toString())
          .isEqualTo(row.get("requests").asLong());
    }
    assertThat(json.get("total").get("failed").asLong()).isEqualTo(1);
    assertThat(json.get("total").get("transcribed").asLong()).isEqualTo(3);
  }

  @Test
  void jsonCarriesTheSameNumbers() throws Exception {
    CommandRun run = usage("--json", "--device", "phone");

    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("since").isNull()).isTrue();
    assertThat(json.get("devices")).hasSize(1);
    JsonNode phone = json.get("devices").get(0);
    assertThat(phone.get("device").asText()).isEqualTo("phone");
    assertThat(phone.get("requests").asLong()).isEqualTo(5);
    assertThat(phone.get("unique_notes").asLong()).isEqualTo(2);
    assertThat(phone.get("replays").asLong()).isEqualTo(2);
    assertThat(phone.get("redundancy_rate").asDouble()).isEqualTo(0.4);
    assertThat(phone.get("seconds_charged").asDouble()).isEqualTo(15.0);
    assertThat(phone.get("seconds_saved").asDouble()).isEqualTo(20.0);
    assertThat(json.get("total").get("requests").asLong()).isEqualTo(5);
  }

  @Test
  void sinceADayCountsFromLocalMidnight() throws Exception {
    CommandRun run = usage("--json", "--since", "2026-12-01");

    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("since").asText()).isEqualTo("2026-11-30T18:30:00Z");
    assertThat(json.get("total").get("requests").asLong()).isEqualTo(5);
    assertThat(json.get("total").get("seconds_charged").asDouble()).isEqualTo(7.5);
  }

  @Test
  void daysRolledUpPastTheRetentionReportTheSameFigures() {
    String table = usage().out();
    String sinceDay = usage("--json", "--since", "2026-12-01").out();
    String phone = usage("--json", "--device", "phone").out();

    // Half a year later, both days are older than the default retention of 90 days.
    try (DurableLedger ledger = ledgerAt(Instant.parse("2027-06-01T00:00:00Z"))) {
      assertThat(ledger.rollUpUsage().usageRows()).isEqualTo(6);
      assertThat(ledger.rollUpUsage().usageRows()).isZero();
    }

    assertThat(usage().out()).isEqualTo(table);
    assertThat(usage("--json", "--since", "2026-12-01").out()).isEqualTo(sinceDay);
    assertThat(usage("--json", "--device", "phone").out()).isEqualTo(phone);
  }

  @Test
  void sinceAcceptsAnInstantAndRejectsNonsense() {
    assertThat(UsageCommand.parseSince("2026-12-01T00:00:00+02:00", ZoneOffset.UTC))
        .isEqualTo(Instant.parse("2026-11-30T22:00:00Z"));
    CommandRun nonsense = usage("--since", "yesterday");

    assertThat(nonsense.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(nonsense.errLines())
        .containsExactly(
            "bolo usage: --since takes a date (2026-12-01) or an instant"
                + " (2026-12-01T08:00:00Z): yesterday",
            "see `bolo usage --help`");
  }

  @Test
  void theLedgerReadIsNamedOnStderrAndDataDirPointsAtIt() {
    env = Map.of();

    CommandRun run = usage("--data-dir", dataDir.toString(), "--device", "tablet");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.errLines())
        .containsExactly("ledger: " + dataDir.resolve("bolo-ledger.db").toAbsolutePath());
    assertThat(run.outLines()).hasSize(2).last().asString().startsWith("tablet");
  }

  @Test
  void withoutALedgerWhereItLooksItSaysWhereAndMakesNone(@TempDir Path elsewhere) {
    Path looked = elsewhere.resolve("bolo-data");

    CommandRun run = usage("--data-dir", looked.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCode.FAILED.code());
    assertThat(run.errLines())
        .singleElement()
        .asString()
        .startsWith("bolo: no ledger at " + looked.resolve("bolo-ledger.db") + " (from --data-dir)")
        .contains("BOLO_DATA_DIR=DIR");
    assertThat(run.out()).isEmpty();
    assertThat(looked).doesNotExist();
  }

  @Test
  void noUsageIsSaidPlainly() {
    assertThat(usage("--device", "ghost").out()).isEqualTo("No requests recorded for ghost.\n");
  }
}
