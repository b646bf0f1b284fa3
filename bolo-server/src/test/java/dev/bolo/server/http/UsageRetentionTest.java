package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.ledger.UsageQuery;
import dev.bolo.server.ledger.UsageRecord;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.testkit.Await;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The gateway rolls usage older than {@code BOLO_USAGE_RETENTION} up as soon as it starts. */
class UsageRetentionTest {

  @RegisterExtension
  final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of("BOLO_USAGE_RETENTION", "30d"));

  @Test
  void aStartingGatewayRollsUpUsageOlderThanTheRetentionAndTheReportStaysTheSame()
      throws Exception {
    Instant now = Instant.now();
    List<DeviceUsage> before;
    try (LedgerProbe probe = LedgerProbe.open(fixture.dataDir())) {
      probe.ledger().add(new Device("kitchen"));
      for (int daysAgo : new int[] {40, 40, 35, 3}) {
        probe
            .ledger()
            .record(
                new UsageRecord(
                    "kitchen",
                    "key-" + daysAgo,
                    "0".repeat(64),
                    2_000,
                    true,
                    "openai",
                    "ok",
                    daysAgo == 40,
                    "req",
                    now.minus(Duration.ofDays(daysAgo))));
      }
      before = probe.ledger().usage(UsageQuery.all());
    }
    assertThat(rowsInUsageLog()).isEqualTo(4);

    Gateway gateway = fixture.start(Map.of());
    try (LedgerProbe probe = LedgerProbe.open(fixture.dataDir())) {
      Await.until(() -> rowsInUsageLog() == 1, () -> rowsInUsageLog() + " rows in the usage log");

      assertThat(probe.ledger().usage(UsageQuery.all())).isEqualTo(before);
      assertThat(before.getFirst().requests()).isEqualTo(4);
      assertThat(gateway.app().port()).isPositive();
    }
  }

  private long rowsInUsageLog() {
    String url = "jdbc:sqlite:" + fixture.dataDir().resolve("bolo-ledger.db").toAbsolutePath();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM usage_log")) {
      r.next();
      return r.getLong(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
