package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/cluster-demo.sh} as the build's test of running several instances: three instances
 * of the jar this module just packaged behind nginx with {@code docs/nginx/bolo.conf}, one Redis,
 * one PostgreSQL, a fake provider. The script checks what it shows (six copies of a note cost one
 * provider call; every request of a resumable upload reaches the instance holding its bytes, an
 * append elsewhere is 421 and stores nothing) and exits non-zero otherwise; this test fails with
 * its output when it does. The tools come from Debian packages that {@code .ci/run} installs; the
 * script is told not to install them ({@code INSTALL=0}), so a missing one fails the test instead
 * of installing behind the build's back or skipping.
 */
class ClusterDemoIT {

  /** Measured 40 s on a loaded two-core machine; the JVMs' start dominates. */
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  @TempDir Path dir;

  @Test
  void threeInstancesBehindTheDocumentedNginxShareWorkAndKeepEachUploadOnItsInstance()
      throws Exception {
    Path jar = Path.of(System.getProperty("bolo.cli.jar", "target/bolo-cli.jar"));
    assertThat(jar).as("the CLI jar (packaged before integration-test)").isRegularFile();
    Path lib = jar.resolveSibling("lib");
    assertThat(lib).as("the CLI's dependencies (copied at package)").isDirectory();

    // The jar just built, as ./bolo would run it, without ./bolo's rebuild check.
    Path launcher = dir.resolve("bolo");
    Files.writeString(
        launcher,
        "#!/bin/sh\nexec '"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' --enable-native-access=ALL-UNNAMED ${BOLO_JAVA_OPTS:-} -cp '"
            + jar.toAbsolutePath()
            + ":"
            + lib.toAbsolutePath()
            + "/*' dev.bolo.cli.Main \"$@\"\n",
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));

    Path output = dir.resolve("cluster-demo.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of("bash", Checkout.ROOT.resolve("scripts/cluster-demo.sh").toString()))
            .directory(Checkout.ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.startsWith("BOLO_") || name.equals("KEEP"));
    builder.environment().put("INSTALL", "0");
    builder.environment().put("BOLO_CLI", launcher.toString());
    long started = System.nanoTime();
    Process demo = builder.start();
    boolean ended = demo.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (!ended) {
      // SIGTERM: the script's trap stops everything it started.
      demo.toHandle().destroy();
      if (!demo.waitFor(30, TimeUnit.SECONDS)) {
        demo.destroyForcibly();
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    String log = read(output);
    System.out.println(log);
    System.out.println("cluster demo took " + took.toSeconds() + " s");

    assertThat(ended).as("the demo ended within " + TIMEOUT + "; its output:\n" + log).isTrue();
    assertThat(demo.exitValue()).as("the demo's exit code; its output:\n" + log).isZero();
    assertThat(log)
        .contains("== OK: one transcription for six copies across 3 instances")
        .contains("every request of the upload reached instance")
        .contains("HTTP 421 wrong_instance")
        .contains("== OK: both resumable uploads reached only the instance holding their bytes")
        // No check reported failed ("   FAIL what"); `bolo usage` has a FAILED column.
        .doesNotContainPattern("(?m)^\\s*FAIL ")
        .contains("== stopped everything");
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no output)";
  }
}
