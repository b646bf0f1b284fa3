package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/bolo.service} as systemd reads it: {@code systemd-analyze verify} reports every
 * unknown key or bad value, which systemd itself would only log and ignore.
 */
class SystemdUnitTest {

  @TempDir Path dir;

  @Test
  void systemdReadsTheUnitWithoutAComplaint() throws Exception {
    assertThat(verify(installed(unit()))).isEmpty();
  }

  @Test
  void aMisspelledHardeningKeyIsReported() throws Exception {
    String misspelled = unit().replace("ProtectSystem=strict", "ProtectSystm=strict");
    assertThat(verify(installed(misspelled))).contains("Unknown key", "ProtectSystm");
  }

  @Test
  void theGatewayRunsUnprivilegedHardenedAndIsNotRestartedForAConfigurationError()
      throws IOException {
    assertThat(unit().lines())
        .contains(
            "User=bolo",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ReadWritePaths=/var/lib/bolo",
            "PrivateTmp=yes",
            "CapabilityBoundingSet=",
            "SystemCallFilter=@system-service",
            "RestartPreventExitStatus=" + dev.bolo.server.Main.CONFIG_ERROR,
            "Environment=BOLO_LOG_FORMAT=json");
  }

  private static String unit() throws IOException {
    return Files.readString(Checkout.ROOT.resolve("deploy/bolo.service"));
  }

  /** The unit as installed: its ExecStart names this checkout's launcher, which exists. */
  private Path installed(String unit) throws IOException {
    String here = unit.replace("/opt/bolo/bolo", Checkout.ROOT.resolve("bolo").toString());
    return Files.writeString(dir.resolve("bolo.service"), here);
  }

  /** What {@code systemd-analyze verify} says about the unit (it exits 0 on warnings). */
  private static String verify(Path unit) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(List.of("systemd-analyze", "verify", unit.toString()))
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output.strip();
  }
}
