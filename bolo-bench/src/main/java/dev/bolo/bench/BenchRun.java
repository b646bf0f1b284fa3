package dev.bolo.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What every harness that runs the gateway in its own process needs: starting and awaiting the
 * processes and stopping them again, the machine's description at the head of a report, and the
 * report written under {@code bolo-bench/results/}.
 */
final class BenchRun {

  private BenchRun() {}

  /**
   * The report's first lines: when, which commit, the machine and its load at the start, the JVM.
   */
  static String machineLines(Path root) throws IOException {
    return String.format(
        Locale.ROOT,
        "- %s UTC, commit %s%n- machine: %d cores (%s), %s memory; load average at start %s%n- %s%n",
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now()),
        output(root, "git", "rev-parse", "--short", "HEAD"),
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        memTotal(),
        Files.readString(Path.of("/proc/loadavg")).trim(),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
  }

  /** Writes {@code report} to {@code bolo-bench/results/<prefix>-<UTC time>.md} and says where. */
  static Path writeResults(Path root, String prefix, CharSequence report) throws IOException {
    Path resultsDir = root.resolve("bolo-bench/results");
    Files.createDirectories(resultsDir);
    Path file =
        resultsDir.resolve(
            prefix
                + "-"
                + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                    .withZone(ZoneOffset.UTC)
                    .format(Instant.now())
                + ".md");
    Files.writeString(file, report);
    System.out.println("written to " + root.relativize(file));
    return file;
  }

  /**
   * Starts the provider stand-in ({@link StandInProvider}, its own JVM) on {@code port}, answering
   * after {@code delayMillis}, and waits until it listens.
   */
  static Process startStandIn(Path work, int port, long delayMillis)
      throws IOException, InterruptedException {
    Process standIn =
        start(
            work.resolve("stand-in.log"),
            Map.of(),
            javaCommand(
                "dev.bolo.bench.StandInProvider",
                "--port",
                Integer.toString(port),
                "--delay-ms",
                Long.toString(delayMillis)));
    awaitPort(port);
    return standIn;
  }

  /**
   * Starts {@code ./bolo serve} of the checkout at {@code root} on {@code port}, with its defaults
   * but the OpenAI-compatible engine pointed at the stand-in, its data under {@code work}, the
   * given devices ({@code BOLO_DEVICE_TOKENS}) and heap; {@code extra} variables are set only where
   * the caller's environment does not set them. {@code BOLO_JAVA_OPTS} from the environment is
   * passed on after the heap, so a profiler can be attached.
   */
  static Process startGateway(
      Path root,
      Path work,
      int port,
      int providerPort,
      String deviceTokens,
      String heap,
      Map<String, String> extra)
      throws IOException {
    Map<String, String> env = BenchNotes.boloEnvironment();
    Files.createDirectories(work);
    env.putAll(
        gatewayOnStandIn(
            port, providerPort, work.resolve("gateway-data").toString(), deviceTokens));
    extra.forEach(env::putIfAbsent);
    env.put(
        "BOLO_JAVA_OPTS",
        "-Xmx"
            + heap
            + " "
            + extra.getOrDefault("BOLO_JAVA_OPTS", "")
            + " "
            + System.getenv().getOrDefault("BOLO_JAVA_OPTS", ""));
    return start(
        work.resolve("gateway.log"), env, List.of(root.resolve("bolo").toString(), "serve"));
  }

  /**
   * The variables of a gateway on 127.0.0.1:{@code port} whose engine is the stand-in on {@code
   * providerPort}, keeping its data in {@code dataDir}, for the devices {@code deviceTokens}.
   */
  static Map<String, String> gatewayOnStandIn(
      int port, int providerPort, String dataDir, String deviceTokens) {
    return Map.of(
        "BOLO_HOST",
        "127.0.0.1",
        "BOLO_PORT",
        Integer.toString(port),
        "BOLO_ENGINE",
        "openai",
        "BOLO_OPENAI_BASE_URL",
        "http://127.0.0.1:" + providerPort + "/v1",
        "BOLO_OPENAI_API_KEY",
        "sk-bench",
        "BOLO_DATA_DIR",
        dataDir,
        "BOLO_DEVICE_TOKENS",
        deviceTokens);
  }

  /** Stops the processes, the last started first, each forcibly after 10 s. */
  static void stopAll(List<Process> processes) throws InterruptedException {
    for (Process process : processes.reversed()) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  static Process start(Path log, Map<String, String> env, List<String> command) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(env);
    return builder.start();
  }

  static List<String> javaCommand(String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(List.of(args));
    return command;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  static void awaitPort(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException("nothing listens on port " + port + " after 60 s");
  }

  static void awaitReady(int port) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < deadline) {
      try {
        if (http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                        .build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode()
            == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the gateway was not ready after 180 s");
  }

  static String cpuModel() throws IOException {
    return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
        .filter(line -> line.startsWith("model name"))
        .findFirst()
        .map(line -> line.substring(line.indexOf(':') + 1).trim())
        .orElse("unknown CPU");
  }

  static String memTotal() throws IOException {
    return Files.readAllLines(Path.of("/proc/meminfo")).stream()
        .filter(line -> line.startsWith("MemTotal:"))
        .findFirst()
        .map(line -> Long.parseLong(line.replaceAll("\\D", "")) / 1024 / 1024 + " GiB")
        .orElse("unknown");
  }

  static String output(Path dir, String... command) {
    try {
      Process process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      process.waitFor();
      return out.trim();
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
