package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.SystemTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code bolo serve} ends when it cannot start. */
class MainTest {

  @TempDir Path dataDir;

  @Test
  void aStaticTokenForAnEnrolledDeviceIsAConfigurationErrorInOneLineWithExitTwo() throws Exception {
    try (DurableLedger cli = Ledger.jdbc(LedgerConfig.embedded(dataDir), SystemTime.ofLedger())) {
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

  /**
   * The offline engine's weights are checked at start: a file altered by one byte (a broken copy, a
   * tampered image) stops the gateway with one line naming it, exit 2, before anything listens.
   */
  @Test
  void anOfflineWeightsFileAlteredByOneByteStopsTheStartInOneLineWithExitTwo() throws Exception {
    Path models = dataDir.resolve("models");
    Path shipped = Path.of(System.getProperty("bolo.models", "../models"));
    try (java.util.stream.Stream<Path> files = Files.walk(shipped)) {
      for (Path file : files.toList()) {
        Path copy = models.resolve(shipped.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(file, copy);
        }
      }
    }
    Path decoder = models.resolve("moonshine-tiny/decoder_model_merged.onnx");
    byte[] bytes = Files.readAllBytes(decoder);
    bytes[bytes.length / 2] ^= 1;
    Files.write(decoder, bytes);
    Path log = dataDir.resolve("serve.log");

    int exit =
        GatewayProcess.runUntilExit(
            Map.of(
                "BOLO_ENGINE", "offline",
                "BOLO_DATA_DIR", dataDir.resolve("data").toString(),
                "BOLO_HOST", "127.0.0.1",
                "BOLO_PORT", "0"),
            log,
            List.of("-Dbolo.models=" + models));

    assertThat(exit).isEqualTo(Main.CONFIG_ERROR).isEqualTo(2);
    assertThat(Files.readAllLines(log))
        .singleElement()
        .asString()
        .startsWith("bolo serve: model file " + decoder + " is altered: its SHA-256 is ")
        .endsWith("restore models/ from the repository");
  }
}
