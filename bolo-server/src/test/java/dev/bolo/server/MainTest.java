package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code bolo serve} ends when it cannot start. */
class MainTest {

  @TempDir Path dataDir;

  @Test
  void aStaticTokenForAnEnrolledDeviceIsAConfigurationErrorInOneLineWithExitTwo() throws Exception {
    try (DurableLedger cli = Ledger.jdbc(LedgerConfig.embedded(dataDir))) {
      cli.add(new Device("alpha"));
    }
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    int exit;
    try (FakeProvider provider = new FakeProvider()) {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      exit =
          Main.serve(
              ServerConfig.fromMap(Gateway.openAiEnvironment(provider, dataDir)),
              app -> {
                throw new AssertionError("the gateway must not start");
              });
    } finally {
      System.setErr(original);
    }

    assertThat(exit).isEqualTo(Main.CONFIG_ERROR).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .startsWith("bolo serve: BOLO_DEVICE_TOKENS names alpha, also enrolled");
  }

  /**
   * A data directory that cannot be made is the operator's to fix, as a bad variable is: exit 2,
   * which the systemd unit does not restart on (exit 1 it restarts every 2 s, forever).
   */
  @Test
  void aDataDirectoryThatCannotBeMadeIsAConfigurationErrorInOneLineWithExitTwo() throws Exception {
    Path file = Files.writeString(dataDir.resolve("a-file"), "not a directory");
    Path log = dataDir.resolve("serve.log");
    int exit;
    try (FakeProvider provider = new FakeProvider()) {
      exit =
          GatewayProcess.runUntilExit(
              Gateway.openAiEnvironment(provider, file.resolve("data")), log);
    }

    assertThat(exit).isEqualTo(Main.CONFIG_ERROR).isEqualTo(2);
    assertThat(Files.readAllLines(log))
        .singleElement()
        .asString()
        .isEqualTo(
            "bolo serve: BOLO_DATA_DIR="
                + file.resolve("data")
                + " cannot be made: "
                + file
                + " is a file, not a directory; point BOLO_DATA_DIR at a directory this user may"
                + " write");
  }

  @Test
  void aPortInUseIsOneLineOnStderrAndExitTwo() throws Exception {
    Path log = dataDir.resolve("serve.log");
    int exit;
    try (FakeProvider provider = new FakeProvider();
        ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Map<String, String> env =
          new HashMap<>(Gateway.openAiEnvironment(provider, dataDir.resolve("data")));
      env.put("BOLO_PORT", Integer.toString(taken.getLocalPort()));
      exit = GatewayProcess.runUntilExit(env, log);
    }

    assertThat(exit).isEqualTo(Main.PORT_IN_USE).isEqualTo(2);
    assertThat(Files.readAllLines(log))
        .singleElement()
        .asString()
        .startsWith("bolo serve: cannot listen on 127.0.0.1:")
        .contains("set BOLO_PORT or BOLO_HOST");
  }
}
