package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./bolo} launcher's JVM options (the default heap, the start-up cache): the real
 * script, copied byte for byte with the file it sources into a checkout that looks built, runs a
 * stand-in {@code JAVA_HOME} whose {@code bin/java} writes down the arguments it was given, and
 * plays the AOT training run (writes the cache, or fails when told to).
 */
class LauncherTest {

  @TempDir Path root;
  private Path javaHome = Path.of("unset");
  private Path recorded = Path.of("unset");
  private Path training = Path.of("unset");

  @BeforeEach
  void aBuiltCheckoutAndARecordingJava() throws IOException {
    copy(Checkout.ROOT.resolve("bolo"), root.resolve("bolo"));
    copy(Checkout.ROOT.resolve(".mvn/find-jdk.sh"), root.resolve(".mvn/find-jdk.sh"));
    // A jar and a build stamp with nothing newer: the launcher does not build.
    Path target = Files.createDirectories(root.resolve("bolo-cli/target"));
    Files.writeString(target.resolve("bolo-cli.jar"), "");
    Files.writeString(target.resolve(".bolo-build-stamp"), "");

    javaHome = root.resolve("jdk");
    Files.createDirectories(javaHome.resolve("bin"));
    recorded = root.resolve("java-args");
    training = root.resolve("java-args.training");
    Checkout.executable(javaHome.resolve("bin/javac"), "#!/bin/sh\nexit 0\n");
    Checkout.executable(
        javaHome.resolve("bin/java"),
        """
        #!/bin/sh
        # Answers the launcher's question about the Java version, records any other run.
        case "$*" in
          *-XshowSettings:properties*) echo '    java.specification.version = 25' >&2; exit 0 ;;
          *-XX:AOTCacheOutput=*)
            printf '%s\n' "$@" >> "$RECORDED_ARGS.training"
            [ -n "${FAIL_TRAINING:-}" ] && exit 1
            for arg in "$@"; do
              case "$arg" in -XX:AOTCacheOutput=*) echo cache > "${arg#-XX:AOTCacheOutput=}" ;; esac
            done
            exit 0 ;;
        esac
        printf '%s\\n' "$@" > "$RECORDED_ARGS"
        """);
  }

  @Test
  void everyEngineGetsAQuarterOfAGigabyteAndTheJvmsOwnCollector() throws Exception {
    // The offline engine's model lives in ONNX Runtime's native memory, not in the heap.
    for (Map<String, String> environment :
        List.of(
            Map.<String, String>of(),
            Map.of("BOLO_ENGINE", "offline"),
            Map.of("BOLO_ENGINE", "openai"),
            Map.of("BOLO_ENGINE", "gemini"))) {
      assertThat(launch(environment))
          .as("%s", environment)
          .contains("-Xmx256m")
          .doesNotContain("-Xmx1g", "-XX:+UseParallelGC", "-Xmn320m");
    }
  }

  @Test
  void javaOptionsWithTheirOwnMaximumHeapReplaceTheDefault() throws Exception {
    assertThat(launch(Map.of("BOLO_JAVA_OPTS", "-Xmx2g")))
        .contains("-Xmx2g")
        .doesNotContain("-Xmx256m");
    assertThat(launch(Map.of("BOLO_JAVA_OPTS", "-XX:MaxRAMPercentage=50", "BOLO_ENGINE", "openai")))
        .contains("-XX:MaxRAMPercentage=50")
        .noneMatch(arg -> arg.startsWith("-Xmx"));
  }

  @Test
  void javaOptionsWithoutAHeapSettingComeAfterTheDefault() throws Exception {
    List<String> args = launch(Map.of("BOLO_JAVA_OPTS", "-Dbolo.example=1 -XX:+UseSerialGC"));
    assertThat(args).contains("-Xmx256m", "-Dbolo.example=1", "-XX:+UseSerialGC");
    assertThat(args.indexOf("-Xmx256m")).isLessThan(args.indexOf("-Dbolo.example=1"));
  }

  @Test
  void theCommandsArgumentsFollowTheMainClass() throws Exception {
    List<String> args = launch(Map.of(), "serve", "--help");
    assertThat(args.subList(args.size() - 3, args.size()))
        .containsExactly("dev.bolo.cli.Main", "serve", "--help");
  }

  @Test
  void theStartUpCacheIsTrainedOnceAfterABuildAndUsedByEveryRun() throws Exception {
    Path cache = root.resolve("bolo-cli/target/bolo.aot");
    assertThat(launch(Map.of())).contains("-XX:AOTCache=" + cache);
    assertThat(training()).contains("dev.bolo.cli.AotTraining", "-XX:AOTCacheOutput=" + cache);

    Files.delete(training);
    assertThat(launch(Map.of("BOLO_ENGINE", "openai"))).contains("-XX:AOTCache=" + cache);
    assertThat(training).as("no second training for the same jar").doesNotExist();
  }

  @Test
  void aNewJarIsTrainedAgain() throws Exception {
    launch(Map.of());
    Files.delete(training);
    Path jar = root.resolve("bolo-cli/target/bolo-cli.jar");
    Files.setLastModifiedTime(
        jar, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 60_000));

    launch(Map.of());

    assertThat(training()).contains("dev.bolo.cli.AotTraining");
  }

  @Test
  void aFailedTrainingStartsWithoutTheCacheAndIsNotRetriedForTheSameJar() throws Exception {
    assertThat(launch(Map.of("FAIL_TRAINING", "1"))).noneMatch(a -> a.startsWith("-XX:AOTCache"));
    Files.delete(training);

    assertThat(launch(Map.of("FAIL_TRAINING", "1"))).noneMatch(a -> a.startsWith("-XX:AOTCache"));
    assertThat(training).doesNotExist();
  }

  @Test
  void aTrainingRunningElsewhereIsNotWaitedForButALockLeftByAKilledOneIsTakenOver()
      throws Exception {
    Path lock = Files.createDirectories(root.resolve("bolo-cli/target/bolo.aot.lock"));
    assertThat(launch(Map.of())).noneMatch(a -> a.startsWith("-XX:AOTCache"));
    assertThat(training).doesNotExist();

    Files.setLastModifiedTime(
        lock, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 600_000));
    assertThat(launch(Map.of())).anyMatch(a -> a.startsWith("-XX:AOTCache"));
    assertThat(training()).contains("dev.bolo.cli.AotTraining");
    assertThat(lock).doesNotExist();
  }

  /** The arguments of the training runs so far. */
  private List<String> training() throws IOException {
    assertThat(training).as("a training run").exists();
    return Files.readAllLines(training);
  }

  @Test
  void aBuildSaysHowLongItTakesNamesEachModuleInOrderAndThenRunsTheCommand() throws Exception {
    Files.delete(root.resolve("bolo-cli/target/.bolo-build-stamp"));
    standInMaven();

    Run run = run(Map.of(), "--version");

    assertThat(run.exitCode()).as(run.output()).isZero();
    List<String> lines = run.output().lines().toList();
    assertThat(lines.getFirst())
        .startsWith("bolo: building (first run or sources changed); this takes about 2 minutes")
        .endsWith("Log: " + root.resolve("bolo-cli/target/bolo-build.log"));
    assertThat(lines)
        .filteredOn(line -> line.startsWith("bolo: buil"))
        .map(line -> line.replaceAll("\\(\\d+ s\\)$", "(N s)").replaceAll("in \\d+ s$", "in N s"))
        .containsSubsequence(
            "bolo: building Bolo (1 of 3) (N s)",
            "bolo: building Bolo server (2 of 3) (N s)",
            "bolo: building Bolo command line (3 of 3) (N s)",
            "bolo: built in N s");
    assertThat(Files.readAllLines(root.resolve("maven-args")))
        .contains("-pl", "bolo-cli", "-am", "package");
    assertThat(Files.readAllLines(recorded)).contains("dev.bolo.cli.Main", "--version");

    Files.delete(root.resolve("maven-args"));
    assertThat(run(Map.of(), "--version").output()).doesNotContain("building");
    assertThat(root.resolve("maven-args")).as("built once").doesNotExist();
  }

  @Test
  void aFailedBuildShowsMavensErrorsAndWhereItsLogIsAndRunsNothing() throws Exception {
    Files.delete(root.resolve("bolo-cli/target/.bolo-build-stamp"));
    standInMaven();
    Files.deleteIfExists(recorded);

    Run run = run(Map.of("FAIL_BUILD", "1"), "--version");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.output())
        .contains("[ERROR] COMPILATION ERROR : Example.java:[1,1] cannot find symbol")
        .containsPattern(
            "bolo: build failed after \\d+ s; full log in "
                + java.util.regex.Pattern.quote(
                    root.resolve("bolo-cli/target/bolo-build.log").toString()));
    assertThat(recorded).as("no command ran").doesNotExist();
  }

  /**
   * A {@code ./mvnw} that writes what Maven writes as it builds three modules, records its
   * arguments and makes the jar, or fails with a compile error when {@code FAIL_BUILD} is set.
   */
  private void standInMaven() throws IOException {
    Checkout.executable(
        root.resolve("mvnw"),
        """
        #!/bin/sh
        printf '%s\\n' "$@" > maven-args
        echo "[INFO] Scanning for projects..."
        echo "[INFO] Building Bolo 0.1.0-SNAPSHOT                                       [1/3]"
        echo "[INFO] --- compiler:3.14.1:compile (default-compile) @ bolo ---"
        echo "[INFO] Building Bolo server 0.1.0-SNAPSHOT                                [2/3]"
        echo "[INFO] Building Bolo command line 0.1.0-SNAPSHOT                          [3/3]"
        echo "[INFO] Building jar: $PWD/bolo-cli/target/bolo-cli.jar"
        if [ -n "${FAIL_BUILD:-}" ]; then
          echo "[ERROR] COMPILATION ERROR : Example.java:[1,1] cannot find symbol"
          echo "[INFO] BUILD FAILURE"
          exit 1
        fi
        : > bolo-cli/target/bolo-cli.jar
        echo "[INFO] BUILD SUCCESS"
        """);
  }

  /** What one run of the launcher printed (stdout and stderr together) and answered. */
  private record Run(int exitCode, String output) {}

  /** Runs {@code ./bolo args} with only {@code env} (and what a shell needs) set. */
  private List<String> launch(Map<String, String> env, String... args) throws Exception {
    Files.deleteIfExists(recorded);
    Run run = run(env, args);
    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(recorded).as("java was run: " + run.output()).exists();
    return Files.readAllLines(recorded);
  }

  private Run run(Map<String, String> env, String... args) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
            concat(List.of("/bin/sh", root.resolve("bolo").toString()), List.of(args)));
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.environment().put("PATH", "/usr/bin:/bin");
    builder.environment().put("JAVA_HOME", javaHome.toString());
    builder.environment().put("RECORDED_ARGS", recorded.toString());
    builder.environment().computeIfAbsent("FAIL_TRAINING", k -> "");
    builder.redirectErrorStream(true);
    builder.environment().computeIfAbsent("FAIL_BUILD", k -> "");
    Process launcher = builder.start();
    String output = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Run(launcher.exitValue(), output);
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
  }
}
