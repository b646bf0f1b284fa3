package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.server.engine.offline.WordErrorRate;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The container image as a container engine would run it, without one ({@link UnpackedImage}): its
 * entrypoint and command run in its own root file system, as its user, with its environment.
 */
class ContainerImageIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private static UnpackedImage image;
  private static Path work = Path.of("unset");
  private static Path rootfs = Path.of("unset");
  private static JsonNode config = JSON.nullNode();

  @BeforeAll
  static void unpackTheImage() throws Exception {
    Path tarball = Path.of(System.getProperty("bolo.image.tar", "target/jib-image.tar"));
    assertThat(tarball).as("the image tarball (built at pre-integration-test)").isRegularFile();
    image = UnpackedImage.unpack(tarball);
    work = image.work();
    rootfs = image.rootfs();
    config = JSON.createObjectNode().set("config", image.container());
  }

  @AfterAll
  static void removeTheRootFileSystem() throws IOException {
    if (image != null) {
      image.close();
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
    assertThat(image.env()).containsEntry("BOLO_DATA_DIR", "/var/lib/bolo");
    assertThat(container.get("Healthcheck").get("Test").get(0).asText()).isEqualTo("CMD");
    assertThat(container.get("ExposedPorts").has("8080/tcp")).isTrue();
  }

  @Test
  void theImageCarriesTheOfflineModelsWhereTheServerLooksForThem() throws Exception {
    assertThat(image.entrypoint()).contains("-Dbolo.models=/app/models");
    Path models = rootfs.resolve("app/models");
    List<String> listed = Files.readAllLines(models.resolve("SHA256SUMS"));
    assertThat(listed).isNotEmpty();
    for (String line : listed) {
      String[] fields = line.split("\\s+\\*?", 2);
      byte[] bytes = Files.readAllBytes(models.resolve(fields[1]));
      assertThat(
              java.util.HexFormat.of()
                  .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes)))
          .as(fields[1])
          .isEqualTo(fields[0]);
    }
  }

  @Test
  void theImageServesFromItsOwnRootFileSystemTranscribesOfflineAndDrainsOnSigterm()
      throws Exception {
    int port = freePort();
    Map<String, String> env = new LinkedHashMap<>(image.env());
    env.put("BOLO_PORT", Integer.toString(port)); // as `docker run -e BOLO_PORT=…`

    // An operator adds a device with the image's own command line: `docker run … devices add`.
    UnpackedImage.Run add = image.start(env, List.of("devices", "add", "phone"));
    assertThat(add.process().waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    String added = add.out();
    assertThat(add.process().exitValue()).as(added + add.err()).isZero();
    List<String> lines = added.strip().lines().toList();
    String token = lines.get(lines.size() - 1).strip();

    UnpackedImage.Run run = image.start(env, image.command());
    Process serve = run.process();
    try {
      String base = "http://127.0.0.1:" + port;
      awaitStatus(base + "/readyz", 200, run);
      assertThat(get(base + "/healthz").statusCode()).isEqualTo(200);
      ProcessHandle gateway = serve.toHandle().children().findFirst().orElseThrow();
      UnpackedImage.Run check = image.exec(gateway, env, image.healthCheck());
      assertThat(check.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(check.process().exitValue()).as("health check: " + check.err()).isZero();
      assertThat(heapMaxBytes(get(base + "/metrics").body()))
          .as("the default heap, JDK_JAVA_OPTIONS=-Xmx256m")
          .isBetween(128L << 20, 256L << 20);

      Path note = Path.of(System.getProperty("bolo.samples", "../samples/notes"), "plants.wav");
      String reference = Files.readString(note.resolveSibling("plants.txt")).strip();
      Outcome outcome =
          BoloClient.builder()
              .baseUrl(base)
              .token(token)
              .build()
              .transcribe(VoiceNote.ofFile(note), TranscriptionOptions.defaults());
      assertThat(outcome)
          .isInstanceOfSatisfying(
              Outcome.Transcribed.class,
              t ->
                  // Measured: every word heard; three of ten wrong would fail.
                  assertThat(WordErrorRate.of(reference, t.transcript().text()))
                      .as(t.transcript().text())
                      .isLessThan(0.3));

      // The command line in the image as a person uses it: the OpenAI SDKs' habit of /v1, one
      // JSON answer per file, and a note longer than the offline engine takes (its 413, why).
      Path notes = Files.createDirectories(rootfs.resolve("tmp/notes"));
      Files.copy(note, notes.resolve("plants.wav"));
      // Over the hour the offline engine takes by default (BOLO_OFFLINE_MAX_SECONDS).
      Files.write(notes.resolve("long.wav"), eightBitWav(3_700_000, 1_000)); // 3700 s
      UnpackedImage.Run cli =
          image.exec(
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
                  "/tmp/notes/plants.wav",
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

  /**
   * The image carries a start-up cache made from its own runtime and jars at build time
   * (deploy/image/train-aot.sh) and its entrypoint uses it: with {@code -XX:AOTMode=on} the JVM
   * stops rather than start without it, and here it serves. A cache the JVM cannot use (here its
   * header spoilt, as a cache of another JVM build is refused at its header) is ignored with one
   * line from the JVM, never fatal: the gateway still serves.
   */
  @Test
  void theEntrypointLoadsTheImagesStartUpCacheAndAStaleOneIsIgnored() throws Exception {
    assertThat(image.entrypoint()).contains("-XX:AOTCache=/app/aot/bolo.aot");
    Path cache = rootfs.resolve("app/aot/bolo.aot");
    assertThat(Files.size(cache)).as("the cache's size").isGreaterThan(10L << 20);

    Map<String, String> env = new LinkedHashMap<>(image.env());
    env.put("JDK_JAVA_OPTIONS", env.get("JDK_JAVA_OPTIONS") + " -XX:AOTMode=on -Xlog:aot");
    UnpackedImage.Run used = serveUntilReady(env);
    assertThat(used.out()).as("the JVM's own report").contains("Using AOT-linked classes: true");

    Path kept = work.resolve("bolo.aot.kept");
    Files.move(cache, kept);
    try {
      // A cache the JVM refuses at its header: the same file with its header's bytes changed.
      byte[] stale = Files.readAllBytes(kept);
      for (int i = 16; i < 64; i++) {
        stale[i] ^= 0x5a;
      }
      Files.write(cache, stale);
      UnpackedImage.Run ignored = serveUntilReady(new LinkedHashMap<>(image.env()));
      assertThat(ignored.out() + ignored.err())
          .containsPattern("\\[aot\\].*(failed|[Uu]nable|mismatch)");
    } finally {
      Files.deleteIfExists(cache);
      Files.move(kept, cache);
    }
  }

  /** Starts {@code serve} with {@code env}, waits for /readyz and stops it with SIGTERM. */
  private static UnpackedImage.Run serveUntilReady(Map<String, String> env) throws Exception {
    int port = freePort();
    env.put("BOLO_PORT", Integer.toString(port));
    UnpackedImage.Run run = image.start(env, image.command());
    try {
      awaitStatus("http://127.0.0.1:" + port + "/readyz", 200, run);
      run.process().toHandle().children().forEach(ProcessHandle::destroy);
      assertThat(run.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
      return run;
    } finally {
      run.process().toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      run.process().destroyForcibly();
    }
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
  private static void awaitStatus(String uri, int status, UnpackedImage.Run gateway)
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
