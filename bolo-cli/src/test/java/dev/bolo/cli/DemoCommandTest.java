package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.testing.SystemTime;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code bolo demo} runs on a ledger of its own and leaves the operator's alone. */
class DemoCommandTest {

  @TempDir Path dataDir;

  @Test
  void theDemoRunsBesideARevokedDeviceNamedDemoAndAddsNothingToTheOperatorsLedger() {
    Map<String, String> env = Map.of("BOLO_DATA_DIR", dataDir.toString());
    try (DurableLedger ledger =
        Ledger.jdbc(ServerConfig.fromMap(env).ledger(), SystemTime.ofLedger())) {
      ledger.add(new Device("demo"));
      ledger.revoke("demo");
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new DemoCommand(env));
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));

    int exit = command.execute("--samples", Checkout.ROOT.resolve("samples/notes").toString());

    assertThat(exit).as(out + "\n" + err).isZero();
    assertThat(out.toString()).contains("a ledger of its own").contains("cost 1 engine call");
    try (DurableLedger ledger =
        Ledger.jdbc(ServerConfig.fromMap(env).ledger(), SystemTime.ofLedger())) {
      assertThat(ledger.devices()).extracting(DeviceInfo::name).containsExactly("demo");
      assertThat(ledger.devices().getFirst().revoked()).isNotNull();
    }
  }
}
