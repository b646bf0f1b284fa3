package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.bolo.testkit.NodePackage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JavaScript package ({@code bolo-client-js} at the repository's top), checked in the build:
 * its tests under Node's test runner (unit tests on a fake clock and the client vectors this
 * module's {@link ClientVectorsTest} runs too), its JSDoc types with {@code tsc --noEmit}, its
 * version against the project's, and its packed tarball as an app installs it ({@code npm install
 * ./bolo-client-*.tgz}, then {@code tsc} over an app's code). TypeScript, and the Standard Webhooks
 * reference library that signs the webhooks its tests verify, come from npm through the package's
 * lock file. Node.js and npm must be on the PATH ({@code .ci/run} installs them): without them this
 * test fails and says so.
 */
class JavaScriptClientTest {

  private static final Path PACKAGE = Path.of("..", "bolo-client-js");
  private static final Path TSC = Path.of("node_modules", "typescript", "bin", "tsc");

  private static final Pattern COUNT = Pattern.compile("^# (pass|fail) (\\d+)$", Pattern.MULTILINE);

  @BeforeAll
  static void installTypeScript() throws Exception {
    // TypeScript, and the Standard Webhooks reference library that signs what the tests verify.
    NodePackage.installInPlace(PACKAGE, "typescript/bin/tsc", "standardwebhooks/package.json");
  }

  @Test
  void theUnitTestsAndTheClientVectorsPassUnderNodesTestRunner() throws Exception {
    String output = run(PACKAGE, "node", "--test", "test/");

    Map<String, Integer> counts = new java.util.HashMap<>();
    Matcher count = COUNT.matcher(output);
    while (count.find()) {
      counts.put(count.group(1), Integer.parseInt(count.group(2)));
    }
    assertThat(counts.get("fail")).as(output).isZero();
    assertThat(counts.get("pass")).as(output).isGreaterThanOrEqualTo(50);
  }

  @Test
  void theJsDocTypesCheckUnderTsc() throws Exception {
    run(PACKAGE, "node", TSC.toString(), "--noEmit", "-p", ".");
  }

  @Test
  void thePackagesVersionIsTheProjects() throws Exception {
    Map<?, ?> manifest = (Map<?, ?>) Json.parse(Files.readString(PACKAGE.resolve("package.json")));

    assertThat(manifest.get("version")).isEqualTo(System.getProperty("bolo.version"));
  }

  @Test
  void anAppInstallsThePackedTarballAndItsCodeTypeChecksAgainstIt() throws Exception {
    Path packed = Files.createDirectories(Path.of("target", "js-pack")).toAbsolutePath();
    try (Stream<Path> old = Files.list(packed)) {
      for (Path file : (Iterable<Path>) old::iterator) {
        Files.delete(file);
      }
    }
    run(PACKAGE, "npm", "pack", "--pack-destination", packed.toString(), "--loglevel=error");
    Path tarball;
    try (Stream<Path> files = Files.list(packed)) {
      tarball = files.filter(f -> f.toString().endsWith(".tgz")).findFirst().orElseThrow();
    }
    assertThat(tarball.getFileName().toString())
        .isEqualTo("bolo-client-" + System.getProperty("bolo.version") + ".tgz");
    assertThat(run(packed, "tar", "tzf", tarball.toString()).lines())
        .contains(
            "package/package.json",
            "package/README.md",
            "package/CHANGELOG.md",
            "package/LICENSE",
            "package/src/index.js",
            "package/types/index.d.ts")
        .noneMatch(file -> file.startsWith("package/test/") || file.contains("node_modules"));

    Path app = Files.createDirectories(Path.of("target", "js-consumer"));
    for (String file : List.of("package.json", "tsconfig.json", "app.ts")) {
      Files.copy(
          Path.of("src", "test", "js-consumer", file),
          app.resolve(file),
          StandardCopyOption.REPLACE_EXISTING);
    }
    // A package without dependencies installs from its tarball alone: no registry is asked.
    run(
        app,
        "npm",
        "install",
        "--no-save",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tarball.toString());
    run(
        app,
        "node",
        PACKAGE.resolve(TSC).toAbsolutePath().normalize().toString(),
        "--noEmit",
        "-p",
        ".");
  }

  /**
   * Runs {@code command} in {@code directory}; returns its output, failing with it on exit != 0.
   */
  private static String run(Path directory, String... command) throws Exception {
    List<String> line = new ArrayList<>(List.of(command));
    Process process;
    try {
      process =
          new ProcessBuilder(line).directory(directory.toFile()).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new AssertionError(
          command[0]
              + " is not on the PATH; install Node.js 18+ with npm"
              + " (Debian: apt-get install nodejs npm; .ci/run does this)",
          e);
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail(String.join(" ", line) + " did not finish in 5 minutes: " + output);
    }
    assertThat(process.exitValue())
        .as("%s in %s:%n%s", String.join(" ", line), directory, output)
        .isZero();
    return Objects.requireNonNull(output);
  }
}
