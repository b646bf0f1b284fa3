package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The container image as a container engine would run it, without one: the image tarball's layers
 * are unpacked in order into a root file system, and its entrypoint and command run there with
 * {@code unshare} (own mount and PID namespaces, the image as root directory, the image's user,
 * environment and working directory; the host's network, as {@code docker run -p} would give).
 * Needs root, as a container engine does: it makes device nodes and switches to the image's user.
 */
class ContainerImageIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private static Path work = Path.of("unset");
  private static Path rootfs = Path.of("unset");
  private static JsonNode config = JSON.nullNode();

  @BeforeAll
  static void unpackTheImage() throws Exception {
    Path image = Path.of(System.getProperty("bolo.image.tar", "target/jib-image.tar"));
    assertThat(image).as("the image tarball (built at pre-integration-test)").isRegularFile();
    assertThat(run(List.of("id", "-u")).strip())
        .as(
            "running the image needs root, as a container engine does (device nodes, switching to"
                + " the image's user); build without the image with -Dbolo.image.skip=true")
        .isEqualTo("0");
    work = Files.createTempDirectory(image.getParent(), "image-run-");
    Path archive = Files.createDirectories(work.resolve("archive"));
    rootfs = Files.createDirectories(work.resolve("rootfs"));
    run(List.of("tar", "-xf", image.toString(), "-C", archive.toString()));
    JsonNode manifest = JSON.readTree(archive.resolve("manifest.json").toFile()).get(0);
    config = JSON.readTree(archive.resolve(manifest.get("Config").asText()).toFile());
    for (JsonNode layer : manifest.get("Layers")) {
      unpackLayer(archive.resolve(layer.asText()));
    }
    // What an engine provides at run time: /proc (mounted by unshare) and the device nodes.
    Files.createDirectories(rootfs.resolve("proc"));
    Files.createDirectories(rootfs.resolve("dev"));
    for (String[] node :
        List.of(
            new String[] {"null", "3"},
            new String[] {"zero", "5"},
            new String[] {"random", "8"},
            new String[] {"urandom", "9"})) {
      run(
          List.of(
              "mknod",
              "-m",
              "666",
              rootfs.resolve("dev/" + node[0]).toString(),
              "c",
              "1",
              node[1]));
    }
  }

  @AfterAll
  static void removeTheRootFileSystem() throws IOException {
    if (!Files.isDirectory(work)) {
      return;
    }
    try (Stream<Path> files = Files.walk(work)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }

  @Test
  void theImageRunsServeAsANonRootUserWithTheDataDirAsAVolumeAndAHealthCheck() throws IOException {
    JsonNode container = config.get("config");
    assertThat(container.get("User").asText()).isEqualTo("65532:65532");
    assertThat(Files.readString(rootfs.resolve("etc/passwd")))
        .contains("bolo:x:65532:65532:Bolo:/var/lib/bolo:");
    assertThat(container.get("Cmd")).containsExactly(JSON.valueToTree("serve"));
    assertThat(container.get("Volumes").has("/var/lib/bolo")).isTrue();
    // A new named volume is filled from the image's directory, owner included.
    assertThat(Files.getAttribute(rootfs.resolve("var/lib/bolo"), "unix:uid")).isEqualTo(65532);
    assertThat(env()).containsEntry("BOLO_DATA_DIR", "/var/lib/bolo");
    assertThat(container.get("Healthcheck").get("Test").get(0).asText()).isEqualTo("CMD");
    assertThat(container.get("ExposedPorts").has("8080/tcp")).isTrue();
  }

  @Test
  void theImageServesFromItsOwnRootFileSystemTranscribesOfflineAndDrainsOnSigterm()
      throws Exception {
    int port = freePort();
    Map<String, String> env = new LinkedHashMap<>(env());
    env.put("BOLO_PORT", Integer.toString(port)); // as `docker run -e BOLO_PORT=…`

    // An operator adds a device with the image's own command line: `docker run … devices add`.
    Run add = start(env, List.of("devices", "add", "phone"));
    assertThat(add.process().waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String added = add.out();
    assertThat(add.process().exitValue()).as(added + add.err()).isZero();
    List<String> lines = added.strip().lines().toList();
    String token = lines.get(lines.size() - 1).strip();

    Run run = start(env, command());
    Process serve = run.process();
    try {
      String base = "http://127.0.0.1:" + port;
      awaitStatus(base + "/readyz", 200, run);
      assertThat(get(base + "/healthz").statusCode()).isEqualTo(200);
      ProcessHandle gateway = serve.toHandle().children().findFirst().orElseThrow();
      Run check = exec(gateway, env, healthCheck());
      assertThat(check.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(check.process().exitValue()).as("health check: " + check.err()).isZero();
      assertThat(heapMaxBytes(get(base + "/metrics").body()))
          .as("the default heap, JDK_JAVA_OPTIONS=-Xmx1g")
          .isBetween(512L << 20, 1024L << 20);

      Path note = Path.of(System.getProperty("bolo.samples", "../samples/notes"), "dinner.wav");
      String reference = Files.readString(note.resolveSibling("dinner.txt")).strip();
      Outcome outcome =
          BoloClient.builder()
              .baseUrl(base)
              .token(token)
              .build()
              .transcribe(VoiceNote.ofFile(note), TranscriptionOptions.defaults());
      assertThat(outcome)
          .isInstanceOfSatisfying(
              Outcome.Transcribed.class,
              t -> {
                List<String> heard = Arrays.asList(t.transcript().text().split("\\s+"));
                long recognised =
                    Arrays.stream(reference.split("\\s+")).filter(heard::contains).count();
                assertThat(recognised).as(t.transcript().text()).isGreaterThanOrEqualTo(6);
              });

      // The command line in the image as a person uses it: the OpenAI SDKs' habit of /v1, one
      // JSON answer per file, and a note longer than the offline engine takes (its 413, why).
      Path notes = Files.createDirectories(rootfs.resolve("tmp/notes"));
      Files.copy(note, notes.resolve("dinner.wav"));
      // Over the hour the offline engine takes by default (BOLO_OFFLINE_MAX_SECONDS).
      Files.write(notes.resolve("long.wav"), eightBitWav(3_700_000, 1_000)); // 3700 s
      Run cli =
          exec(
              gateway,
              env,
              List.of(
                  "java",
                  "--enable-native-access=ALL-UNNAMED",
                  "-cp",
                  "@/app/jib-classpath-file",
                  "dev.bolo.cli.Main",
                  "transcribe",
                  "--server=" + base + "/v1",
                  "--token=" + token,
                  "--json",
                  "/tmp/notes/dinner.wav",
                  "/tmp/notes/long.wav"));
      assertThat(cli.process().waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(cli.process().exitValue())
          .as(cli.out() + cli.err())
          .isEqualTo(ExitCode.REFUSED.code());
      List<JsonNode> answers = new ArrayList<>();
      for (String line : cli.out().strip().lines().toList()) {
        answers.add(JSON.readTree(line));
      }
      assertThat(answers).hasSize(2);
      assertThat(answers.get(0).get("status").asText()).isEqualTo("transcribed");
      assertThat(answers.get(0).get("engine").asText()).isEqualTo("offline");
      assertThat(answers.get(0).get("audio_sha256").asText()).isEqualTo(sha256(note));
      assertThat(answers.get(1).get("http_status").asInt()).isEqualTo(413);
      assertThat(answers.get(1).get("code").asText()).isEqualTo("audio_too_long");
      assertThat(answers.get(1).get("error").asText()).contains("3700 s long");

      gateway.destroy(); // SIGTERM, as `docker stop` sends
      assertThat(serve.waitFor(60, TimeUnit.SECONDS)).as("exits after draining").isTrue();
      String log = run.err();
      assertThat(serve.exitValue()).as(log).isZero();
      assertThat(log).contains("stop requested", "draining", "drained", "stopped");
      assertThat(log.lines().filter(line -> line.startsWith("{")).count())
          .as("JSON log lines")
          .isGreaterThan(3);
    } finally {
      serve.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      serve.destroyForcibly();
    }
  }

  /** The image's environment, as the engine passes it to the entrypoint. */
  private static Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode entry : config.get("config").get("Env")) {
      String[] pair = entry.asText().split("=", 2);
      env.put(pair[0], pair[1]);
    }
    return env;
  }

  /** The entrypoint followed by {@code args} (the image's command replaced, as docker run does). */
  private static Run start(Map<String, String> env, List<String> args) throws IOException {
    List<String> command = new ArrayList<>();
    config.get("config").get("Entrypoint").forEach(part -> command.add(part.asText()));
    command.addAll(args);
    return startInContainer(env, command);
  }

  private static List<String> command() {
    List<String> args = new ArrayList<>();
    config.get("config").get("Cmd").forEach(part -> args.add(part.asText()));
    return args;
  }

  private static List<String> healthCheck() {
    List<String> test = new ArrayList<>();
    config.get("config").get("Healthcheck").get("Test").forEach(part -> test.add(part.asText()));
    assertThat(test.remove(0)).isEqualTo("CMD");
    return test;
  }

  /** Runs {@code command} inside the image's root, as its user, in its working directory. */
  private static Run startInContainer(Map<String, String> env, List<String> command)
      throws IOException {
    JsonNode container = config.get("config");
    String[] user = container.get("User").asText().split(":", 2);
    List<String> unshare =
        new ArrayList<>(
            List.of(
                "/usr/bin/unshare",
                "--mount",
                "--pid",
                "--fork",
                "--kill-child",
                "--mount-proc=/proc",
                "--root=" + rootfs,
                "--wd=" + container.get("WorkingDir").asText(),
                "--setgid=" + user[1],
                "--setuid=" + user[0],
                "--"));
    unshare.addAll(command);
    return launch(env, unshare);
  }

  private static Run launch(Map<String, String> env, List<String> command) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(env);
    // Output goes to files, so a chatty process never blocks on a full pipe.
    String name = "run-" + System.nanoTime();
    Path stdout = work.resolve(name + ".out");
    Path stderr = work.resolve(name + ".err");
    builder.redirectOutput(stdout.toFile());
    builder.redirectError(stderr.toFile());
    return new Run(builder.start(), stdout, stderr);
  }

  /**
   * Runs {@code command} in the running container of {@code gateway}, as {@code docker exec} (and
   * Docker's health check) does: in its mount and PID namespaces, root and working directory, as
   * the image's user. Its own PID namespace would make it PID 1 too, and two JVMs of one user with
   * the same PID share one performance-data file in /tmp.
   */
  private static Run exec(ProcessHandle gateway, Map<String, String> env, List<String> command)
      throws IOException {
    String[] user = config.get("config").get("User").asText().split(":", 2);
    List<String> nsenter =
        new ArrayList<>(
            List.of(
                "/usr/bin/nsenter",
                "--target=" + gateway.pid(),
                "--mount",
                "--pid",
                "--root",
                "--wd",
                "--setgid=" + user[1],
                "--setuid=" + user[0],
                "--"));
    nsenter.addAll(command);
    return launch(env, nsenter);
  }

  /** A process started in the image, with the files its output goes to. */
  private record Run(Process process, Path stdout, Path stderr) {
    String out() throws IOException {
      return Files.readString(stdout);
    }

    String err() throws IOException {
      return Files.readString(stderr);
    }
  }

  private static void unpackLayer(Path layer) throws IOException, InterruptedException {
    run(List.of("tar", "-xzf", layer.toString(), "-C", rootfs.toString(), "--numeric-owner"));
    // OCI whiteouts: a layer deletes a lower file with an empty ".wh.NAME" beside it.
    try (Stream<Path> files = Files.walk(rootfs)) {
      for (Path marker :
          files.filter(f -> f.getFileName().toString().startsWith(".wh.")).toList()) {
        String name = marker.getFileName().toString().substring(4);
        // Jib writes no whiteouts; an opaque directory would need more than this loop does.
        assertThat(name).as("opaque whiteout in " + layer).isNotEqualTo(".wh..opq");
        run(List.of("rm", "-rf", marker.resolveSibling(name).toString()));
        Files.delete(marker);
      }
    }
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(command + ": " + output).isZero();
    return output;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static HttpResponse<String> get(String uri) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
          HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  /** Polls until {@code uri} answers {@code status}; fails at once when the gateway has exited. */
  private static void awaitStatus(String uri, int status, Run gateway)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(gateway.process().isAlive()).as("gateway exited: " + gateway.err()).isTrue();
      try {
        if (get(uri).statusCode() == status) {
          return;
        }
      } catch (IOException notListeningYet) {
        // keep polling until the deadline
      }
      // The gateway's start is what we wait for; there is no event to await from outside.
      gateway.process().waitFor(200, TimeUnit.MILLISECONDS);
    }
    throw new AssertionError(uri + " did not answer " + status + ": " + gateway.err());
  }

  private static String sha256(Path file) throws Exception {
    return java.util.HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  /** A WAV of 8-bit mono noise: {@code samples / rate} seconds in a small file. */
  private static byte[] eightBitWav(int samples, int rate) {
    ByteBuffer b = ByteBuffer.allocate(44 + samples).order(ByteOrder.LITTLE_ENDIAN);
    b.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + samples);
    b.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    b.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    b.putShort((short) 1).putShort((short) 1).putInt(rate).putInt(rate);
    b.putShort((short) 1).putShort((short) 8);
    b.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(samples);
    Random random = new Random(5);
    while (b.hasRemaining()) {
      b.put((byte) (128 + random.nextInt(20) - 10));
    }
    return b.array();
  }

  /** The largest heap pool's maximum in Prometheus text (G1's old generation is the heap's). */
  private static long heapMaxBytes(String metrics) {
    return metrics
        .lines()
        .filter(line -> line.startsWith("jvm_memory_max_bytes{") && line.contains("area=\"heap\""))
        .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        // The heap's pools together: the throughput collector gives each generation a maximum
        // (each generation's own maximum), G1 only its old generation (1024 MB).
        .filter(max -> max > 0)
        .reduce(Long::sum)
        .orElseThrow(() -> new UncheckedIOException(new IOException("no heap in /metrics")));
  }
}
