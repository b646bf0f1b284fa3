package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.testing.SystemTime;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/deploy-systemd.md's commands, run as printed: every block marked for this test, in order, by
 * {@code sh -eu} in a clone's directory, with {@code /opt/bolo}, {@code /var/lib/bolo}, {@code
 * /etc/bolo} and {@code /etc/systemd/system} moved under a scratch root. {@code sudo} (which runs
 * the command as the test's user and writes down as whom), {@code useradd}, {@code systemctl},
 * {@code git archive} (the launcher and a stand-in {@code mvnw} whose "build" is a jar of this
 * test's class path) and {@code install}'s owner and group (only root may give them) are stand-ins
 * that record their arguments; {@code tar}, {@code install}, the launcher, the JVM and {@code bolo
 * devices} are real. Then: the files are where the unit looks, with its modes, and the device made
 * as the service's user is in the ledger the service reads.
 */
class SystemdInstallTest {

  private static final String MARKER =
      "<!-- SystemdInstallTest runs the next block as printed. -->";

  /** The system paths the commands write, each moved under the scratch root. */
  private static final Pattern SYSTEM_PATH =
      Pattern.compile(
          "(?<![\\w/.-])(/opt/bolo(?:\\.new|\\.old)?|/var/lib/bolo|/etc/bolo|/etc/systemd/system)"
              + "(?=$|[/\\s'\"])");

  /** A system path left outside the scratch root: the block must not run. */
  private static final Pattern UNMOVED = Pattern.compile("(?<![\\w/.-])/(opt|etc|var|usr/local)/");

  @TempDir Path scratch;
  private Path root = Path.of("unset");
  private Path clone = Path.of("unset");
  private Path log = Path.of("unset");
  private final Map<String, String> env = new LinkedHashMap<>();

  @BeforeEach
  void aScratchSystemWithStandIns() throws IOException {
    root = Files.createDirectories(scratch.resolve("root"));
    for (String dir : List.of("etc/systemd/system", "opt", "var/lib")) {
      Files.createDirectories(root.resolve(dir));
    }
    // The commands' working directory: a clone's deploy/ (and anything a wrong command would
    // leave behind, such as a ./bolo-data, stays in the scratch directory).
    clone = scratch.resolve("clone");
    Files.createDirectories(clone.resolve("deploy"));
    for (String file : List.of("deploy/bolo.env", "deploy/bolo.service")) {
      Files.copy(Checkout.ROOT.resolve(file), clone.resolve(file));
    }
    log = scratch.resolve("stand-ins.log");
    Path bin = Files.createDirectories(scratch.resolve("bin"));
    Checkout.executable(
        bin.resolve("sudo"),
        """
        #!/bin/sh
        user=root
        if [ "$1" = -u ]; then user=$2; shift 2; fi
        echo "sudo as $user: $*" >> "$STAND_IN_LOG"
        exec "$@"
        """);
    for (String command : List.of("useradd", "systemctl")) {
      Checkout.executable(
          bin.resolve(command), "#!/bin/sh\necho \"" + command + " $*\" >> \"$STAND_IN_LOG\"\n");
    }
    Checkout.executable(
        bin.resolve("install"),
        """
        #!/bin/sh
        # Records the owner and group asked for, which only root may give, and installs without them.
        echo "install $*" >> "$STAND_IN_LOG"
        skip=""
        for arg do
          shift
          if [ -n "$skip" ]; then skip=""; continue; fi
          case $arg in -o|-g) skip=1; continue ;; esac
          set -- "$@" "$arg"
        done
        exec /usr/bin/install "$@"
        """);
    Checkout.executable(
        bin.resolve("git"),
        """
        #!/bin/sh
        echo "git $*" >> "$STAND_IN_LOG"
        [ "$*" = "archive HEAD" ] || exit 2
        exec tar -c -C "$COMMITTED" .
        """);

    env.put("PATH", bin + File.pathSeparator + "/usr/bin:/bin");
    env.put("HOME", scratch.toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("STAND_IN_LOG", log.toString());
    env.put("COMMITTED", committedTree().toString());
    env.put("BUILT_JAR", builtJar().toString());
  }

  @Test
  void theDocumentedInstallAndFirstDeviceRunAsPrintedAndMeetTheUnit() throws Exception {
    List<String> blocks = markedBlocks();
    assertThat(blocks).as("install, first device, another ledger command, upgrade").hasSize(4);

    Run install = run(blocks.get(0));
    assertThat(install.exitCode()).as(install.err()).isZero();

    assertThat(mode(root.resolve("var/lib/bolo"))).isEqualTo("rwx------");
    assertThat(mode(root.resolve("etc/bolo/bolo.env"))).isEqualTo("rw-r-----");
    assertThat(root.resolve("etc/bolo/bolo.env"))
        .hasSameTextualContentAs(Checkout.ROOT.resolve("deploy/bolo.env"));
    assertThat(mode(root.resolve("etc/systemd/system/bolo.service"))).isEqualTo("rw-r--r--");
    assertThat(root.resolve("etc/systemd/system/bolo.service"))
        .hasSameTextualContentAs(Checkout.ROOT.resolve("deploy/bolo.service"));
    assertThat(install.out()).contains("Bolo 0.1.0");
    assertThat(Files.readAllLines(log))
        .contains(
            "useradd --system --user-group --home-dir "
                + root.resolve("var/lib/bolo")
                + " --shell /usr/sbin/nologin bolo",
            "install -d -o bolo -g bolo -m 0700 " + root.resolve("var/lib/bolo"),
            "install -D -m 0640 -o root -g bolo deploy/bolo.env "
                + root.resolve("etc/bolo/bolo.env"),
            "systemctl daemon-reload",
            "systemctl enable --now bolo")
        .contains("sudo as root: sh -c cd " + root.resolve("opt/bolo") + " && ./bolo --version")
        .filteredOn(line -> line.startsWith("git ") || line.contains("mvnw"))
        .containsExactly(
            "git archive HEAD",
            "mvnw -B -DskipTests -Dspotless.check.skip=true -pl bolo-cli -am package");

    Run add = run(blocks.get(1));
    assertThat(add.exitCode()).as(add.err()).isZero();
    Path ledgerFile = root.resolve("var/lib/bolo/bolo-ledger.db");
    assertThat(add.err()).contains("ledger: " + ledgerFile);
    assertThat(mode(ledgerFile)).isEqualTo("rw-------");
    String token = add.out().strip().lines().reduce((first, last) -> last).orElseThrow();
    try (DurableLedger ledger = serviceLedger()) {
      assertThat(ledger.authenticate(token)).contains(new Device("phone"));
    }
    assertThat(Files.readAllLines(log)).last().asString().startsWith("sudo as bolo: sh -c ");

    Run list = run(blocks.get(2));
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out().lines()).anySatisfy(line -> assertThat(line).startsWith("phone "));

    Run upgrade = run(blocks.get(3));
    assertThat(upgrade.exitCode()).as(upgrade.err()).isZero();
    assertThat(upgrade.err()).contains("bolo: built in");
    assertThat(Files.readAllLines(log)).filteredOn(line -> line.contains("mvnw")).hasSize(2);
    // Built beside the running service, which stops only for the swap and starts again.
    assertThat(Files.readAllLines(log))
        .filteredOn(line -> line.startsWith("systemctl "))
        .endsWith("systemctl stop bolo", "systemctl start bolo");
    assertThat(root.resolve("opt/bolo/bolo")).isExecutable();
    assertThat(root.resolve("opt/bolo.old/bolo")).isExecutable();
    assertThat(root.resolve("opt/bolo.new")).doesNotExist();
    try (DurableLedger ledger = serviceLedger()) {
      assertThat(ledger.authenticate(token))
          .as("kept through the upgrade")
          .contains(new Device("phone"));
    }
  }

  @Test
  void theDeviceCommandRunsAsTheUnitsUserWithItsDataDirEnvironmentFileAndLauncher()
      throws IOException {
    Map<String, String> unit = unitSettings();
    List<String> blocks = markedBlocks();
    String dataDir = setting(unit, "Environment").replaceFirst("^BOLO_DATA_DIR=", "");
    String launcher = setting(unit, "ExecStart").replaceFirst(" serve$", "");
    String environmentFile = setting(unit, "EnvironmentFile").replaceFirst("^-", "");

    assertThat(unit).containsEntry("User", "bolo").containsEntry("ReadWritePaths", dataDir);
    assertThat(blocks.get(0))
        .contains("--home-dir " + dataDir + " ", " bolo\n")
        .contains("-m 0700 " + dataDir + "\n")
        .contains("deploy/bolo.env " + environmentFile + "\n")
        .contains("cd " + unit.get("WorkingDirectory") + " && ./bolo --version");
    for (String ledgerCommand : blocks.subList(1, 3)) {
      assertThat(ledgerCommand)
          .startsWith("sudo -u " + unit.get("User") + " sh -c 'set -a && BOLO_DATA_DIR=" + dataDir)
          .contains(". " + environmentFile + " && ", "exec " + launcher + " devices ");
    }
  }

  /** The stand-in {@code git archive}'s tree: the launcher, its JDK finder and a stand-in Maven. */
  private Path committedTree() throws IOException {
    Path tree = Files.createDirectories(scratch.resolve("committed"));
    Files.copy(Checkout.ROOT.resolve("bolo"), tree.resolve("bolo"));
    Files.createDirectories(tree.resolve(".mvn"));
    Files.copy(Checkout.ROOT.resolve(".mvn/find-jdk.sh"), tree.resolve(".mvn/find-jdk.sh"));
    Files.writeString(tree.resolve("pom.xml"), "<project/>\n");
    Checkout.executable(
        tree.resolve("mvnw"),
        """
        #!/bin/sh
        # Stands in for Maven: the "build" is the jar the test made, and no start-up cache is due.
        echo "mvnw $*" >> "$STAND_IN_LOG"
        mkdir -p bolo-cli/target
        cp "$BUILT_JAR" bolo-cli/target/bolo-cli.jar
        touch -d "@$(($(date +%s) + 3600))" bolo-cli/target/bolo.aot.tried
        echo "[INFO] BUILD SUCCESS"
        """);
    // As git archive gives them: the commit's time, before any build.
    try (Stream<Path> files = Files.walk(tree)) {
      for (Path file : files.toList()) {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(86_400)));
      }
    }
    return tree;
  }

  /** A jar of nothing but this test's class path: the JVM follows a jar's Class-Path. */
  private Path builtJar() throws IOException {
    String classPath =
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(entry -> Path.of(entry).toUri().toString())
            .collect(Collectors.joining(" "));
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
    Path jar = scratch.resolve("bolo-cli.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
      out.flush();
    }
    return jar;
  }

  /** The code blocks the doc marks for this test, in order, as printed. */
  private static List<String> markedBlocks() throws IOException {
    List<String> lines = Files.readAllLines(Checkout.ROOT.resolve("docs/deploy-systemd.md"));
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).equals(MARKER)) {
        continue;
      }
      assertThat(lines.get(i + 1)).as("a sh block follows the marker").isEqualTo("```sh");
      StringBuilder block = new StringBuilder();
      for (int j = i + 2; !lines.get(j).equals("```"); j++) {
        block.append(lines.get(j)).append('\n');
      }
      blocks.add(block.toString());
    }
    return blocks;
  }

  /** The unit's {@code Key=value} settings; a key set twice keeps its first value. */
  private static Map<String, String> unitSettings() throws IOException {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Checkout.ROOT.resolve("deploy/bolo.service"))) {
      Matcher setting = Pattern.compile("^(\\w+)=(.*)$").matcher(line);
      if (setting.matches()) {
        settings.putIfAbsent(setting.group(1), setting.group(2));
      }
    }
    return settings;
  }

  private static String setting(Map<String, String> unit, String key) {
    return Objects.requireNonNull(unit.get(key), "the unit sets " + key);
  }

  private DurableLedger serviceLedger() {
    return Ledger.jdbc(
        ServerConfig.fromMap(Map.of("BOLO_DATA_DIR", root.resolve("var/lib/bolo").toString()))
            .ledger(),
        SystemTime.ofLedger());
  }

  private record Run(int exitCode, String out, String err) {}

  /** Runs {@code block} with {@code sh -eu} in the clone, the system paths under the root. */
  private Run run(String block) throws Exception {
    String script =
        SYSTEM_PATH.matcher(block).replaceAll(m -> Matcher.quoteReplacement(root + m.group(1)));
    assertThat(UNMOVED.matcher(script).find())
        .as("a system path the test does not move under its scratch root: %s", script)
        .isFalse();
    ProcessBuilder builder =
        new ProcessBuilder("/bin/sh", "-eu", "-c", script).directory(clone.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    Path out = scratch.resolve("out");
    Path err = scratch.resolve("err");
    builder.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process process = builder.start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("finished: %s", script).isTrue();
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  private static String mode(Path file) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
  }
}
