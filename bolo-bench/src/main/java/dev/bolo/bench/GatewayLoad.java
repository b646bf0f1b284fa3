package dev.bolo.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The gateway under external load, side by side with the provider stand-in reached directly and
 * through nginx: every process is separate (stand-in JVM, nginx, the gateway started by {@code
 * ./bolo serve}, Debian's {@code wrk} as the load generator), so the load never runs in the
 * gateway's JVM. Each round measures every target for the same time, one after the other; the table
 * reports per-target medians over rounds and the median of the per-round ratios.
 *
 * <p>Then a duplicate storm (every note sent {@code --copies} times at once; provider calls must
 * equal distinct notes), and, with {@code --attackers N}, the gateway again while N slow clients
 * (half trickling headers, half trickling a body with a valid token) hold connections open.
 *
 * <p>Usage: {@code bolo-bench/run GatewayLoad [--connections 50] [--note-kb 200] [--seconds 10]
 * [--rounds 3] [--warmup 60] [--delay-ms 0] [--attackers 0] [--copies 4] [--storm-notes 100]
 * [--heap 512m] [--targets direct,nginx,gateway] [--baseline DIR] [--timeout SECONDS] [--generator
 * wrk|java]}. Needs {@code wrk} and {@code nginx} on the PATH. {@code --generator java} sends from
 * this process with {@link JavaLoad} instead of wrk: for notes of megabytes, where wrk's
 * per-request copies of the body cost more CPU than the servers measured.
 */
public final class GatewayLoad {

  private static final String TOKEN = "bench-token-0123456789";

  /** The attackers' own device: a stolen or abused token, not the one the normal load uses. */
  private static final String ATTACKER_TOKEN = "attacker-token-0123456789";

  private static final String BOUNDARY = "bolo-bench-boundary-7MA4YWxkTrZu0gW";
  private static final Pattern RESULT = Pattern.compile("RESULT (.*)");

  private GatewayLoad() {}

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Path root = Path.of(System.getProperty("bolo.root", ".")).toAbsolutePath().normalize();
    Path work = Files.createTempDirectory("bolo-load");
    List<Process> processes = new ArrayList<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> processes.forEach(Process::destroy)));
    try {
      Path script = work.resolve("unique-notes.lua");
      try (InputStream in = GatewayLoad.class.getResourceAsStream("unique-notes.lua")) {
        Files.write(script, in.readAllBytes());
      }
      Path body = work.resolve("body.bin");
      Files.write(body, multipart(options.noteKb() * 1024));

      int providerPort = BenchRun.freePort();
      Process standIn = BenchRun.startStandIn(work, providerPort, options.delayMillis());
      processes.add(standIn);
      int nginxPort = BenchRun.freePort();
      processes.add(startNginx(work, nginxPort, providerPort, options.noteKb()));
      BenchRun.awaitPort(nginxPort);
      int gatewayPort = BenchRun.freePort();
      Process gateway = startGateway(root, work, gatewayPort, providerPort, options);
      processes.add(gateway);
      BenchRun.awaitReady(gatewayPort);

      Map<String, String> urls = new LinkedHashMap<>();
      // The process whose CPU time each target costs (nginx's workers are not counted).
      Map<String, Long> servers = new HashMap<>();
      servers.put("direct", standIn.pid());
      servers.put("gateway", gateway.pid());
      String path = "/v1/audio/transcriptions";
      for (String target : options.targets()) {
        switch (target) {
          case "direct" -> urls.put(target, "http://127.0.0.1:" + providerPort + path);
          case "nginx" -> urls.put(target, "http://127.0.0.1:" + nginxPort + path);
          case "gateway" -> urls.put(target, "http://127.0.0.1:" + gatewayPort + path);
          default -> throw new IllegalArgumentException("unknown target: " + target);
        }
      }
      Path baseline = options.baseline();
      if (baseline != null) {
        // Another checkout's gateway (say, main before a change), measured in the same run.
        int baselinePort = BenchRun.freePort();
        Process other =
            startGateway(baseline, work.resolve("baseline"), baselinePort, providerPort, options);
        processes.add(other);
        servers.put("baseline", other.pid());
        BenchRun.awaitReady(baselinePort);
        urls.put("baseline", "http://127.0.0.1:" + baselinePort + path);
      }
      StringBuilder report = new StringBuilder();
      header(report, root, options);
      System.out.print(report);

      for (var target : urls.entrySet()) {
        // A gateway serves for days: measure it after the JIT has compiled its request path (on
        // two cores that takes tens of seconds of load), as JMH measures after its warm-up.
        wrk(
            script,
            body,
            target.getValue(),
            tokenFor(target.getKey()),
            options,
            options.warmupSeconds(),
            "warm");
      }
      Map<String, List<WrkResult>> results = new LinkedHashMap<>();
      HeapSampler heap = new HeapSampler("http://127.0.0.1:" + gatewayPort + path);
      // Sampled the same way, so that both gateways bear the sampling alike.
      String baselineUrl = urls.get("baseline");
      HeapSampler baselineHeap = baselineUrl == null ? null : new HeapSampler(baselineUrl);
      long fdsBefore = openFiles(gateway.pid());
      HttpClient settle = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      for (int round = 1; round <= options.rounds(); round++) {
        for (var target : inRoundOrder(urls, round)) {
          // The stand-in finishes the calls the previous target left (each takes --delay-ms) before
          // the next target's load begins.
          Thread.sleep(options.delayMillis() + 1_000);
          quietProviderCalls(settle, providerPort);
          boolean isGateway = target.getKey().equals("gateway");
          HeapSampler sampler =
              isGateway ? heap : target.getKey().equals("baseline") ? baselineHeap : null;
          if (sampler != null) {
            sampler.start();
          }
          Long server = servers.get(target.getKey());
          long cpuBefore = server == null ? 0 : cpuMillis(server);
          WrkResult result =
              wrk(
                  script,
                  body,
                  target.getValue(),
                  tokenFor(target.getKey()),
                  options,
                  options.seconds(),
                  "r" + round);
          if (sampler != null) {
            sampler.stop();
          }
          if (server != null) {
            result = result.withServerCpuMillis(cpuMillis(server) - cpuBefore);
          }
          results.computeIfAbsent(target.getKey(), k -> new ArrayList<>()).add(result);
          System.out.printf("round %d %-8s %s%n", round, target.getKey(), result);
        }
      }
      StringBuilder table = new StringBuilder();
      table(table, results);
      table.append(
          String.format(
              Locale.ROOT,
              "%nGateway: peak heap used %d MB (its /metrics, sampled every second), peak RSS %d MB,"
                  + " open files %d before the rounds and %d after.%n",
              heap.peakUsedMb(),
              peakRssMb(gateway.pid()),
              fdsBefore,
              openFiles(gateway.pid())));
      if (options.attackers() > 0 && urls.containsKey("gateway")) {
        attacked(
            table, root, work, script, body, urls.get("gateway"), gateway, gatewayPort, options);
      }
      if (options.copies() > 1 && urls.containsKey("gateway")) {
        storm(table, providerPort, gatewayPort, options);
      }
      System.out.print(table);
      report.append(table);
      BenchRun.writeResults(root, "gateway-load", report);
    } finally {
      BenchRun.stopAll(processes);
    }
  }

  private static @Nullable String tokenFor(String target) {
    return target.equals("gateway") || target.equals("baseline") ? TOKEN : null;
  }

  /** The gateway's figures with and without slow clients holding connections, side by side. */
  private static void attacked(
      StringBuilder out,
      Path root,
      Path work,
      Path script,
      Path body,
      String url,
      Process gateway,
      int gatewayPort,
      Options options)
      throws Exception {
    List<WrkResult> quiet = new ArrayList<>();
    List<WrkResult> underAttack = new ArrayList<>();
    HeapSampler quietHeap = new HeapSampler(url);
    HeapSampler attackHeap = new HeapSampler(url);
    long fdsBefore = openFiles(gateway.pid());
    for (int round = 1; round <= options.rounds(); round++) {
      quietHeap.start();
      quiet.add(wrk(script, body, url, TOKEN, options, options.seconds(), "q" + round));
      quietHeap.stop();
      Process attackers =
          BenchRun.start(
              work.resolve("attackers.log"),
              Map.of(),
              BenchRun.javaCommand(
                  "dev.bolo.bench.SlowClients",
                  "--port",
                  Integer.toString(gatewayPort),
                  "--connections",
                  Integer.toString(options.attackers()),
                  "--token",
                  ATTACKER_TOKEN));
      try {
        // Let every attacker connect and settle before the measured load starts.
        Thread.sleep(5_000);
        attackHeap.start();
        underAttack.add(wrk(script, body, url, TOKEN, options, options.seconds(), "a" + round));
        attackHeap.stop();
      } finally {
        attackers.destroy();
        attackers.waitFor(10, TimeUnit.SECONDS);
      }
      System.out.printf(
          "round %d quiet %s%nround %d attacked %s%n",
          round, quiet.getLast(), round, underAttack.getLast());
    }
    // Connections the attackers held are closed by now; give the gateway a moment to notice.
    Thread.sleep(3_000);
    Map<String, List<WrkResult>> rows = new LinkedHashMap<>();
    rows.put("gateway, quiet", quiet);
    rows.put("gateway + " + options.attackers() + " slow clients", underAttack);
    out.append(String.format("%n### Under attack (%d slow clients)%n%n", options.attackers()));
    table(out, rows);
    out.append(
        String.format(
            Locale.ROOT,
            "%nPeak heap used: quiet %d MB, under attack %d MB. Open files: %d before, %d after"
                + " the attackers left. Attackers' own count: %s%n",
            quietHeap.peakUsedMb(),
            attackHeap.peakUsedMb(),
            fdsBefore,
            openFiles(gateway.pid()),
            lastLine(work.resolve("attackers.log"))));
  }

  /**
   * The targets in the order of this round: rotated by one each round, so no target always runs
   * right after another (measured before each target also waited for a quiet stand-in: the target
   * run right after {@code direct} at 2,000 connections lost a tenth of its rate to that place
   * alone, whichever build it was).
   */
  static <V> List<Map.Entry<String, V>> inRoundOrder(Map<String, V> targets, int round) {
    List<Map.Entry<String, V>> order = new ArrayList<>(targets.entrySet());
    Collections.rotate(order, 1 - round);
    return order;
  }

  /**
   * The stand-in's call count once it has stopped changing: requests wrk abandoned when a round
   * ended still run to the provider (a disconnect never cancels work), and must not be counted as
   * the storm's.
   */
  static long quietProviderCalls(HttpClient http, int providerPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long calls = providerCalls(http, providerPort);
    while (System.nanoTime() < deadline) {
      Thread.sleep(1_000);
      long now = providerCalls(http, providerPort);
      if (now == calls) {
        return now;
      }
      calls = now;
    }
    throw new IllegalStateException("the provider stand-in kept receiving calls for a minute");
  }

  /**
   * Waits until the gateway serves no transcription request (its {@code
   * bolo_transcription_requests_in_flight} gauge): requests wrk abandoned when the rounds ended are
   * still reaching the provider, and a gateway slowed by the load may pause longer than {@link
   * #quietProviderCalls} waits between two counts.
   */
  private static void awaitIdleGateway(HttpClient http, int gatewayPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    HttpRequest metrics =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gatewayPort + "/metrics"))
            .timeout(Duration.ofSeconds(10))
            .build();
    Pattern inFlight =
        Pattern.compile("(?m)^bolo_transcription_requests_in_flight(?:\\{[^}]*\\})? ([0-9.]+)$");
    while (System.nanoTime() < deadline) {
      Matcher matcher =
          inFlight.matcher(http.send(metrics, HttpResponse.BodyHandlers.ofString()).body());
      if (matcher.find() && Double.parseDouble(matcher.group(1)) == 0) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("the gateway still served requests two minutes after the load");
  }

  /** Every note sent {@code copies} times at once: provider calls must equal distinct notes. */
  private static void storm(StringBuilder out, int providerPort, int gatewayPort, Options options)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    awaitIdleGateway(http, gatewayPort);
    long callsBefore = quietProviderCalls(http, providerPort);
    byte[] template = multipart(options.noteKb() * 1024);
    int placeholder = indexOf(template, "@".repeat(24).getBytes(StandardCharsets.US_ASCII));
    AtomicLong ok = new AtomicLong();
    AtomicLong replayed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong resent = new AtomicLong();
    String nonce = Long.toString(System.nanoTime() % 100_000_000L);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> sent = new ArrayList<>();
      for (int note = 0; note < options.stormNotes(); note++) {
        byte[] body = template.clone();
        byte[] id =
            String.format(Locale.ROOT, "storm%8s%011d", nonce, note)
                .replace(' ', '0')
                .getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(id, 0, body, placeholder, 24);
        for (int copy = 0; copy < options.copies(); copy++) {
          sent.add(
              threads.submit(
                  () -> {
                    HttpRequest request =
                        HttpRequest.newBuilder(
                                URI.create(
                                    "http://127.0.0.1:" + gatewayPort + "/v1/audio/transcriptions"))
                            .header("Authorization", "Bearer " + TOKEN)
                            .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                            .timeout(Duration.ofSeconds(60))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build();
                    HttpResponse<String> response = sendAsAPhone(http, request, resent);
                    if (response != null && response.statusCode() == 200) {
                      ok.incrementAndGet();
                      if (response.headers().firstValue("Idempotent-Replayed").isPresent()) {
                        replayed.incrementAndGet();
                      }
                    } else {
                      failed.incrementAndGet();
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> future : sent) {
        future.get(600, TimeUnit.SECONDS);
      }
    }
    long calls = providerCalls(http, providerPort) - callsBefore;
    out.append(
        String.format(
            Locale.ROOT,
            "%nDuplicate storm: %d notes x %d copies at once: %d answered 200 (%d replayed),"
                + " %d failed, %d resends after a 503 or a closed connection; provider calls %d"
                + " (%s).%n",
            options.stormNotes(),
            options.copies(),
            ok.get(),
            replayed.get(),
            failed.get(),
            resent.get(),
            calls,
            calls == options.stormNotes() ? "= distinct notes" : "NOT equal to distinct notes"));
  }

  /**
   * Sends as a phone does: a 503 (the gateway's admission control refusing a body past what it can
   * take, with {@code Retry-After}) or a connection the gateway closed while the body was still
   * going is sent again after the pause asked for (2 s when none), up to 6 attempts; null if every
   * attempt broke.
   */
  private static @Nullable HttpResponse<String> sendAsAPhone(
      HttpClient http, HttpRequest request, AtomicLong resent) throws InterruptedException {
    HttpResponse<String> response = null;
    for (int attempt = 1; attempt <= 6; attempt++) {
      long pauseSeconds = 2;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 503) {
          return response;
        }
        pauseSeconds = response.headers().firstValue("Retry-After").map(Long::parseLong).orElse(2L);
      } catch (java.io.IOException e) {
        response = null;
      }
      if (attempt < 6) {
        resent.incrementAndGet();
        Thread.sleep(Math.min(10, pauseSeconds) * 1000);
      }
    }
    return response;
  }

  static long providerCalls(HttpClient http, int port) throws Exception {
    return Long.parseLong(
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/calls")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body()
            .trim());
  }

  private static void header(StringBuilder out, Path root, Options options) throws Exception {
    out.append("# Gateway under external load\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "%s- %s, %d connections, %d KB unique WAV notes, request timeout %d s, %d s of"
                + " unmeasured warm-up per target, then %d s per target per round, %d rounds; provider stand-in delay %d ms; gateway heap -Xmx%s%n"
                + "- nginx %s: proxy_pass with request buffering, access log off%n%n",
            BenchRun.machineLines(root),
            options.generator().equals("java")
                ? "load from JavaLoad (the JDK's HttpClient in the harness's process, each body"
                    + " three views of one array)"
                : "wrk, 2 threads",
            options.connections(),
            options.noteKb(),
            options.timeoutSeconds(),
            options.warmupSeconds(),
            options.seconds(),
            options.rounds(),
            options.delayMillis(),
            options.heap(),
            BenchRun.output(root, "nginx", "-v").replace("nginx version: ", "")));
  }

  private static void table(StringBuilder out, Map<String, List<WrkResult>> results) {
    out.append(
        "| target | ok req/s (median) | rounds | p50 ms | p99 ms | errors | share of first row"
            + " | server CPU ms/req |\n");
    out.append("|---|---|---|---|---|---|---|---|\n");
    List<WrkResult> reference = results.values().iterator().next();
    for (var row : results.entrySet()) {
      List<WrkResult> rounds = row.getValue();
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < rounds.size() && i < reference.size(); i++) {
        ratios.add(rounds.get(i).okPerSecond() / reference.get(i).okPerSecond());
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %s | %.1f | %.1f | %d | %.2f | %s |%n",
              row.getKey(),
              median(rounds.stream().map(WrkResult::okPerSecond).toList()),
              String.join(
                  ", ",
                  rounds.stream()
                      .map(r -> String.format(Locale.ROOT, "%.0f", r.okPerSecond()))
                      .toList()),
              median(rounds.stream().map(r -> r.p50Micros() / 1000.0).toList()),
              median(rounds.stream().map(r -> r.p99Micros() / 1000.0).toList()),
              rounds.stream().mapToLong(WrkResult::errors).sum(),
              median(ratios),
              cpuColumn(rounds)));
    }
  }

  private static String cpuColumn(List<WrkResult> rounds) {
    List<Double> perRequest =
        rounds.stream().map(WrkResult::serverCpuPerRequest).filter(v -> !v.isNaN()).toList();
    return perRequest.isEmpty() ? "–" : String.format(Locale.ROOT, "%.2f", median(perRequest));
  }

  /** User plus system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
  private static long cpuMillis(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    // Fields after the command name, which is in parentheses and may hold spaces.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static WrkResult wrk(
      Path script,
      Path body,
      String url,
      @Nullable String token,
      Options options,
      int seconds,
      String tag)
      throws Exception {
    // The nonce keeps notes of different rounds and targets apart: 8 characters.
    String nonce = String.format("%-8s", tag + Long.toString(System.nanoTime() % 100_000, 36));
    nonce = nonce.replace(' ', 'x').substring(0, 8);
    if (options.generator().equals("java")) {
      return JavaLoad.run(
          bodyBytes(body),
          "multipart/form-data; boundary=" + BOUNDARY,
          url,
          token,
          options.connections(),
          seconds,
          options.timeoutSeconds(),
          nonce);
    }
    List<String> command =
        List.of(
            "wrk",
            "-t2",
            "-c" + options.connections(),
            "-d" + seconds + "s",
            "--timeout",
            options.timeoutSeconds() + "s",
            "-s",
            script.toString(),
            url,
            "--",
            body.toString(),
            nonce,
            BOUNDARY,
            token == null ? "" : token);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    Matcher matcher = RESULT.matcher(out);
    if (!matcher.find()) {
      throw new IllegalStateException("wrk printed no result:\n" + out);
    }
    Map<String, Long> values = new HashMap<>();
    for (String pair : matcher.group(1).trim().split(" ")) {
      String[] kv = pair.split("=");
      values.put(kv[0], Long.parseLong(kv[1]));
    }
    return new WrkResult(
        values.getOrDefault("requests", 0L),
        values.getOrDefault("duration_us", 0L),
        values.getOrDefault("p50_us", 0L),
        values.getOrDefault("p99_us", 0L),
        values.getOrDefault("status", 0L),
        values.getOrDefault("timeout", 0L),
        values.getOrDefault("connect", 0L)
            + values.getOrDefault("read", 0L)
            + values.getOrDefault("write", 0L),
        -1);
  }

  private static final Map<Path, byte[]> BODIES = new java.util.concurrent.ConcurrentHashMap<>();

  private static byte[] bodyBytes(Path body) {
    return BODIES.computeIfAbsent(
        body,
        path -> {
          try {
            return Files.readAllBytes(path);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  /** One wrk run; status errors are answers other than 2xx/3xx. */
  record WrkResult(
      long requests,
      long durationMicros,
      long p50Micros,
      long p99Micros,
      long statusErrors,
      long timeouts,
      long socketErrors,
      long serverCpuMillis) {
    /** The same run with the CPU time its server process spent, in ms (-1: not measured). */
    WrkResult withServerCpuMillis(long millis) {
      return new WrkResult(
          requests,
          durationMicros,
          p50Micros,
          p99Micros,
          statusErrors,
          timeouts,
          socketErrors,
          millis);
    }

    /** Server CPU per answered request, in ms, or NaN when not measured. */
    double serverCpuPerRequest() {
      return serverCpuMillis < 0 || requests == 0
          ? Double.NaN
          : (double) serverCpuMillis / requests;
    }

    long errors() {
      return statusErrors + timeouts + socketErrors;
    }

    double okPerSecond() {
      return Math.max(0, requests - statusErrors) / (durationMicros / 1e6);
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%.0f ok req/s, p50 %.1f ms, p99 %.1f ms, %d non-2xx, %d timeouts, %d socket errors",
          okPerSecond(),
          p50Micros / 1000.0,
          p99Micros / 1000.0,
          statusErrors,
          timeouts,
          socketErrors);
    }
  }

  /**
   * Samples a gateway's used heap from its own {@code /metrics} ({@code
   * jvm_memory_used_bytes{area="heap"}}) every second while a phase runs: one small HTTP request,
   * where a {@code jstat} per sample started a JVM each second beside the gateway measured (and
   * took its CPU from that gateway's rounds alone).
   */
  static final class HeapSampler {
    private final HttpClient http = HttpClient.newHttpClient();
    private final HttpRequest metrics;
    private final AtomicLong peakBytes = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private @Nullable Thread thread;

    HeapSampler(String targetUrl) {
      URI target = URI.create(targetUrl);
      // A gateway deep in garbage collection may answer late: that sample is skipped, not the rest.
      this.metrics =
          HttpRequest.newBuilder(target.resolve("/metrics")).timeout(Duration.ofSeconds(5)).build();
    }

    void start() {
      running.set(true);
      thread = Thread.ofPlatform().daemon().start(this::sample);
    }

    void stop() throws InterruptedException {
      running.set(false);
      if (thread != null) {
        thread.join();
      }
    }

    long peakUsedMb() {
      return peakBytes.get() / (1024 * 1024);
    }

    private void sample() {
      while (running.get()) {
        try {
          double used = 0;
          for (String line :
              http.send(metrics, HttpResponse.BodyHandlers.ofString()).body().lines().toList()) {
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
              used += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
          }
          peakBytes.accumulateAndGet((long) used, Math::max);
          Thread.sleep(1_000);
        } catch (HttpTimeoutException e) {
          // Skipped; the next sample follows at once.
        } catch (IOException | RuntimeException e) {
          return;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private static long peakRssMb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
      }
    }
    return -1;
  }

  private static long openFiles(long pid) throws IOException {
    try (var files = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return files.count();
    }
  }

  private static Process startNginx(Path work, int port, int providerPort, int noteKb)
      throws IOException {
    Path conf = work.resolve("nginx.conf");
    Files.createDirectories(work.resolve("nginx"));
    Files.writeString(
        conf,
        """
        daemon off;
        user %5$s;
        worker_processes auto;
        pid %1$s/nginx.pid;
        error_log %1$s/nginx/error.log warn;
        events { worker_connections 4096; }
        http {
          access_log off;
          client_body_temp_path %1$s/nginx/body;
          proxy_temp_path %1$s/nginx/proxy;
          fastcgi_temp_path %1$s/nginx/fastcgi;
          uwsgi_temp_path %1$s/nginx/uwsgi;
          scgi_temp_path %1$s/nginx/scgi;
          upstream provider { server 127.0.0.1:%3$d; keepalive 256; }
          server {
            listen 127.0.0.1:%2$d;
            client_max_body_size %4$dk;
            client_body_buffer_size 1m;
            location / {
              proxy_pass http://provider;
              proxy_http_version 1.1;
              proxy_set_header Connection "";
              proxy_request_buffering on;
            }
          }
        }
        """
            // Workers write large bodies into this run's private folder: they run as its owner.
            .formatted(
                work, port, providerPort, noteKb * 2 + 1024, System.getProperty("user.name")));
    return BenchRun.start(
        work.resolve("nginx.log"),
        Map.of(),
        List.of("nginx", "-p", work.toString(), "-c", conf.toString()));
  }

  private static Process startGateway(
      Path root, Path work, int port, int providerPort, Options options) throws IOException {
    // The normal load stands for many phones but uses one device token for all its connections.
    return BenchRun.startGateway(
        root,
        work,
        port,
        providerPort,
        "bench=" + TOKEN + ",attacker=" + ATTACKER_TOKEN,
        options.heap(),
        Map.of("BOLO_MAX_UPLOADS_PER_DEVICE", Integer.toString(options.connections() + 14)));
  }

  /** A multipart upload of one WAV note whose samples hold a 24-character placeholder. */
  static byte[] multipart(int noteBytes) {
    byte[] wav = BenchNotes.wav(noteBytes);
    byte[] placeholder = "@".repeat(24).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(placeholder, 0, wav, 64, placeholder.length);
    String head =
        "--"
            + BOUNDARY
            + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--"
            + BOUNDARY
            + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.wav\"\r\n"
            + "Content-Type: audio/wav\r\n\r\n";
    String tail = "\r\n--" + BOUNDARY + "--\r\n";
    ByteBuffer body =
        ByteBuffer.allocate(head.length() + wav.length + tail.length())
            .put(head.getBytes(StandardCharsets.US_ASCII))
            .put(wav)
            .put(tail.getBytes(StandardCharsets.US_ASCII));
    return body.array();
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new IllegalArgumentException("placeholder not found");
  }

  private static String lastLine(Path file) throws IOException {
    if (!Files.exists(file)) {
      return "none";
    }
    List<String> lines = Files.readAllLines(file);
    return lines.isEmpty() ? "none" : lines.getLast();
  }

  /** Command-line options. */
  record Options(
      int connections,
      int noteKb,
      int seconds,
      int rounds,
      long delayMillis,
      int attackers,
      int copies,
      int stormNotes,
      int warmupSeconds,
      String heap,
      List<String> targets,
      @Nullable Path baseline,
      int timeoutSeconds,
      String generator) {

    /**
     * How long the SDK waits for the answer to a note this long (its read timeout: 30 s plus half
     * the note, at most 120 s): wrk gives up on a request no sooner than a phone would. The notes
     * are 16 kHz 16-bit mono WAV, 32,000 bytes a second.
     */
    static int sdkReadTimeoutSeconds(int noteKb) {
      long noteSeconds = noteKb * 1000L / 32_000;
      return (int) Math.min(120, 30 + noteSeconds / 2);
    }

    static Options parse(String[] args) {
      Map<String, String> values = new HashMap<>();
      for (int i = 0; i + 1 < args.length; i += 2) {
        values.put(args[i], args[i + 1]);
      }
      Options options =
          new Options(
              Integer.parseInt(values.getOrDefault("--connections", "50")),
              Integer.parseInt(values.getOrDefault("--note-kb", "200")),
              Integer.parseInt(values.getOrDefault("--seconds", "10")),
              Integer.parseInt(values.getOrDefault("--rounds", "3")),
              Long.parseLong(values.getOrDefault("--delay-ms", "0")),
              Integer.parseInt(values.getOrDefault("--attackers", "0")),
              Integer.parseInt(values.getOrDefault("--copies", "4")),
              Integer.parseInt(values.getOrDefault("--storm-notes", "100")),
              Integer.parseInt(values.getOrDefault("--warmup", "60")),
              values.getOrDefault("--heap", "512m"),
              List.of(values.getOrDefault("--targets", "direct,nginx,gateway").split(",")),
              values.containsKey("--baseline") ? Path.of(values.get("--baseline")) : null,
              Integer.parseInt(
                  values.getOrDefault(
                      "--timeout",
                      Integer.toString(
                          sdkReadTimeoutSeconds(
                              Integer.parseInt(values.getOrDefault("--note-kb", "200")))))),
              values.getOrDefault("--generator", "wrk"));
      if (!List.of("wrk", "java").contains(options.generator())) {
        throw new IllegalArgumentException("--generator is wrk or java: " + options.generator());
      }
      for (String name : values.keySet()) {
        if (!List.of(
                "--connections",
                "--note-kb",
                "--seconds",
                "--rounds",
                "--delay-ms",
                "--attackers",
                "--copies",
                "--storm-notes",
                "--warmup",
                "--heap",
                "--targets",
                "--baseline",
                "--timeout",
                "--generator")
            .contains(name)) {
          throw new IllegalArgumentException("unknown option: " + name);
        }
      }
      return options;
    }
  }
}
