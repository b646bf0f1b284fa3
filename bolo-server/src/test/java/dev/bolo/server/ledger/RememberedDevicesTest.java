package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.bolo.testkit.FakeTicker;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the ledger keeps in memory about tokens, on the embedded SQLite file and a fake ticker. */
class RememberedDevicesTest {

  @TempDir Path dataDir;
  private final FakeTicker ticker = FakeTicker.atOneSecond();

  @Test
  void tokensNobodyOwnsNeverTakeTheRoomOfDevicesTokens() {
    LedgerConfig config = LedgerConfig.embedded(dataDir);
    try (DurableLedger operator =
            Ledger.jdbc(config, new LedgerTime(Clock.systemUTC(), ticker, System::nanoTime));
        HikariDataSource database = LedgerDatabase.open(config)) {
      String token = ((Enrollment.Enrolled) operator.add(new Device("phone"))).token();
      RememberedDevices remembered = new RememberedDevices(new Jdbc(database), config, ticker);
      assertThat(remembered.authenticate(token)).contains(new Device("phone"));

      for (int i = 0; i < 5_000; i++) {
        assertThat(remembered.authenticate("guess-" + i)).isEmpty();
      }

      assertThat(remembered.rememberedDeviceTokens()).isEqualTo(1);
      assertThat(remembered.rememberedUnknownTokens())
          .isLessThanOrEqualTo(RememberedDevices.MAX_UNKNOWN_TOKENS);
      // Still answered from memory: revoked by another process, it holds only after a second.
      assertThat(operator.revoke("phone")).isTrue();
      assertThat(remembered.authenticate(token)).contains(new Device("phone"));
    }
  }
}
