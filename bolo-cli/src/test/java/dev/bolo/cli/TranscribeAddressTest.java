package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where {@code bolo transcribe} looks for the gateway (the option, {@code BOLO_SERVER}, {@code
 * BOLO_HOST} and {@code BOLO_PORT} as {@code bolo serve} reads them) and the one line it prints
 * when nothing answers there; against the real gateway on a loopback port and a closed one.
 */
class TranscribeAddressTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();
  @TempDir Path dir;

  private CommandRun transcribe(Map<String, String> env, String... args) {
    Map<String, String> withToken = new HashMap<>(env);
    withToken.put("BOLO_TOKEN", GatewayExtension.TOKEN);
    return CommandRun.of(new TranscribeCommand(withToken, GatewayExtension.resendAtOnce()), args);
  }

  private String wav(String name, long seed) throws IOException {
    return Files.write(dir.resolve(name), EndToEndTest.wav(1000, seed)).toString();
  }

  /** A loopback port nothing listens on: taken from the system, then let go. */
  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void theGatewayIsFoundWhereBoloServeListensWithTheSameHostAndPort() throws Exception {
    String port = String.valueOf(gateway.port());
    List<Map<String, String>> environments =
        List.of(
            Map.of("BOLO_PORT", port),
            Map.of("BOLO_HOST", "127.0.0.1", "BOLO_PORT", port),
            // A gateway listening on every address is reached on loopback.
            Map.of("BOLO_HOST", "0.0.0.0", "BOLO_PORT", port),
            Map.of("BOLO_HOST", "::", "BOLO_PORT", port));

    for (int i = 0; i < environments.size(); i++) {
      CommandRun run = transcribe(environments.get(i), wav("n" + i + ".wav", 40 + i));

      assertThat(run.exitCode()).as("%s: %s", environments.get(i), run.err()).isZero();
      assertThat(run.out()).startsWith("note number ");
    }
    assertThat(gateway.successes()).isEqualTo(environments.size());
  }

  @Test
  void boloServerWinsOverHostAndPortAndTheOptionWinsOverEverything() throws Exception {
    String closed = "http://127.0.0.1:" + closedPort();
    Map<String, String> serverSet =
        Map.of("BOLO_SERVER", gateway.baseUrl(), "BOLO_PORT", String.valueOf(closedPort()));

    CommandRun fromServer = transcribe(serverSet, wav("a.wav", 51));
    CommandRun fromOption =
        transcribe(Map.of("BOLO_SERVER", closed), "--server", gateway.baseUrl(), wav("b.wav", 52));

    assertThat(fromServer.exitCode()).as(fromServer.err()).isZero();
    assertThat(fromOption.exitCode()).as(fromOption.err()).isZero();
    assertThat(gateway.successes()).isEqualTo(2);
  }

  @Test
  void nothingListeningIsSaidOnceNamingTheAddressWhileEveryNoteMakesEveryAttempt()
      throws Exception {
    int port = closedPort();

    CommandRun run =
        transcribe(Map.of("BOLO_PORT", String.valueOf(port)), wav("a.wav", 61), wav("b.wav", 62));

    assertThat(run.exitCode()).isEqualTo(ExitCode.GAVE_UP.code());
    String hint =
        "bolo: nothing answers at http://127.0.0.1:"
            + port
            + " (from BOLO_PORT): is `bolo serve` running? Trying up to 4 times in all.";
    assertThat(run.errLines().getFirst()).isEqualTo(hint);
    assertThat(run.errLines()).filteredOn(line -> line.contains("bolo serve")).hasSize(1);
    // The resends go on as the policy says: 3 for each note, then it gives up.
    assertThat(run.errLines()).filteredOn(line -> line.contains("retrying in")).hasSize(6);
    assertThat(run.err())
        .contains("a.wav: gave up after 4 attempt(s): connection: ConnectException")
        .contains("b.wav: gave up after 4 attempt(s): connection: ConnectException");
  }

  @Test
  void withNothingSetTheHintSaysTheAddressIsTheDefaultAndWhatNamesAnother() {
    GatewayAddress address = GatewayAddress.of(null, Map.of());

    String hint =
        new NoGatewayHint(address, new java.io.PrintWriter(new java.io.StringWriter()), 4).line();

    assertThat(hint)
        .startsWith("bolo: nothing answers at http://127.0.0.1:8080 (the default address;")
        .contains("--server", "BOLO_SERVER", "BOLO_HOST/BOLO_PORT", "is `bolo serve` running?");
  }

  @Test
  void aPortNoClientCanConnectToIsAUsageErrorNamingTheVariable() throws Exception {
    CommandRun run = transcribe(Map.of("BOLO_PORT", "0"), wav("a.wav", 71));

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.errLines())
        .containsExactly(
            "bolo transcribe: BOLO_PORT must be a port from 1 to 65535 to connect to (or give"
                + " --server): 0",
            "see `bolo transcribe --help`");
    assertThat(gateway.calls()).isZero();
  }
}
