package dev.bolo.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The servers {@link GatewayLoad} measures, each in its own process and started by {@link #start}:
 * the provider stand-in reached directly ({@code direct}), nginx in front of it ({@code nginx}),
 * the gateway ({@code gateway}), with {@code --baseline} another checkout's gateway ({@code
 * baseline}), and any variants of this checkout's gateway a harness names, each with variables of
 * its own ({@link TracingOverhead}'s). Immutable once started.
 */
final class LoadTargets {

  /** The device token of the normal load: one for all its connections. */
  static final String TOKEN = "bench-p2r66OvPTA-2UF-aWbAkkk9I";

  /** The attackers' own device: a stolen or abused token, not the one the normal load uses. */
  static final String ATTACKER_TOKEN = "attacker-token-0123456789";

  private static final String PATH = "/v1/audio/transcriptions";

  private final Map<String, String> urls;
  private final Map<String, Map<String, Long>> processes;
  private final int providerPort;
  private final int gatewayPort;
  private final Process gateway;

  private LoadTargets(
      Map<String, String> urls,
      Map<String, Map<String, Long>> processes,
      int providerPort,
      int gatewayPort,
      Process gateway) {
    this.urls = Collections.unmodifiableMap(urls);
    this.processes = Map.copyOf(processes);
    this.providerPort = providerPort;
    this.gatewayPort = gatewayPort;
    this.gateway = gateway;
  }

  /** Starts the stand-in, nginx and the gateway (and the baseline), each once it is ready. */
  static LoadTargets start(HarnessRun run, GatewayLoadOptions options) throws Exception {
    return start(run, options, Map.of());
  }

  /**
   * Starts the stand-in, nginx, the gateway (and the baseline) and, after them in the order given,
   * a gateway of this checkout per variant, named by its key and started with its variables as
   * well. A variant named {@code baseline} is not started from this checkout: its variables go to
   * the baseline's gateway instead (with {@code --baseline}).
   */
  static LoadTargets start(
      HarnessRun run, GatewayLoadOptions options, Map<String, Map<String, String>> variants)
      throws Exception {
    Path root = run.root();
    Path work = run.work();
    int providerPort = BenchRun.freePort();
    Process standIn = run.add(BenchRun.startStandIn(work, providerPort, options.delayMillis()));
    int nginxPort = BenchRun.freePort();
    Process nginx = run.add(NginxProxy.start(work, nginxPort, providerPort, options.noteKb()));
    BenchRun.awaitPort(nginxPort);
    int gatewayPort = BenchRun.freePort();
    Process gateway =
        run.add(startGateway(root, work, gatewayPort, providerPort, options, Map.of()));
    BenchRun.awaitReady(gatewayPort);

    Map<String, String> urls = new LinkedHashMap<>();
    // The processes whose CPU time each target costs, by role: its own server, and the stand-in
    // behind it (nginx's master with its workers).
    Map<String, Map<String, Long>> processes = new HashMap<>();
    processes.put("direct", Map.of(LoadResult.SERVER, standIn.pid()));
    processes.put(
        "nginx", Map.of(LoadResult.SERVER, nginx.pid(), LoadResult.STAND_IN, standIn.pid()));
    processes.put(
        "gateway", Map.of(LoadResult.SERVER, gateway.pid(), LoadResult.STAND_IN, standIn.pid()));
    for (String target : options.targets()) {
      switch (target) {
        case "direct" -> urls.put(target, url(providerPort));
        case "nginx" -> urls.put(target, url(nginxPort));
        case "gateway" -> urls.put(target, url(gatewayPort));
        default -> throw new IllegalArgumentException("unknown target: " + target);
      }
    }
    Path baseline = options.baseline();
    if (baseline != null) {
      // Another checkout's gateway (say, main before a change), measured in the same run.
      int baselinePort = BenchRun.freePort();
      Process other =
          run.add(
              startGateway(
                  baseline,
                  work.resolve("baseline"),
                  baselinePort,
                  providerPort,
                  options,
                  variants.getOrDefault("baseline", Map.of())));
      processes.put(
          "baseline", Map.of(LoadResult.SERVER, other.pid(), LoadResult.STAND_IN, standIn.pid()));
      BenchRun.awaitReady(baselinePort);
      urls.put("baseline", url(baselinePort));
    }
    for (var variant : variants.entrySet()) {
      String name = variant.getKey();
      if (name.equals("baseline")) {
        continue;
      }
      int port = BenchRun.freePort();
      Process other =
          run.add(
              startGateway(
                  root, work.resolve(name), port, providerPort, options, variant.getValue()));
      processes.put(
          name, Map.of(LoadResult.SERVER, other.pid(), LoadResult.STAND_IN, standIn.pid()));
      BenchRun.awaitReady(port);
      urls.put(name, url(port));
    }
    return new LoadTargets(urls, processes, providerPort, gatewayPort, gateway);
  }

  /** Every target's transcription URL, by name, in the order the options gave them. */
  Map<String, String> urls() {
    return urls;
  }

  /** The target's URL, or null if it is not measured. */
  @Nullable String url(String target) {
    return urls.get(target);
  }

  /** The gateway's transcription URL, whether or not it is among the measured targets. */
  String gatewayUrl() {
    return url(gatewayPort);
  }

  /**
   * The ids of the processes whose CPU time the target costs, by role ({@link LoadResult#SERVER},
   * {@link LoadResult#STAND_IN}); each counts with the processes it started.
   */
  Map<String, Long> processes(String target) {
    return processes.getOrDefault(target, Map.of());
  }

  /** The id of the target's own server process ({@link LoadResult#SERVER}). */
  long serverPid(String target) {
    return Objects.requireNonNull(processes(target).get(LoadResult.SERVER), target);
  }

  /** Each target's server threads' CPU so far ({@link ProcessStats#threads}). */
  Map<String, ProcessStats.ThreadTimes> threadCpu() throws IOException {
    Map<String, ProcessStats.ThreadTimes> threads = new java.util.LinkedHashMap<>();
    for (String target : urls().keySet()) {
      threads.put(target, ProcessStats.threads(serverPid(target)));
    }
    return threads;
  }

  /**
   * The token of the load's device {@code d} when it stands for several ({@code --devices}): device
   * 0 is {@link #TOKEN}.
   */
  static String deviceToken(int d) {
    return d == 0 ? TOKEN : String.format("bench-phone-%05d-token-p2r66OvPTA2UFaWbA", d);
  }

  /**
   * The device token the load sends to the target, or null where it takes none: every target but
   * the stand-in and nginx is a gateway.
   */
  static @Nullable String tokenFor(String target) {
    return target.equals("direct") || target.equals("nginx") ? null : TOKEN;
  }

  /** The port of the target's server, from its URL. */
  int port(String target) {
    return URI.create(Objects.requireNonNull(urls.get(target), target)).getPort();
  }

  Process gateway() {
    return gateway;
  }

  int gatewayPort() {
    return gatewayPort;
  }

  int providerPort() {
    return providerPort;
  }

  private static String url(int port) {
    return "http://127.0.0.1:" + port + PATH;
  }

  private static Process startGateway(
      Path root,
      Path work,
      int port,
      int providerPort,
      GatewayLoadOptions options,
      Map<String, String> variables)
      throws IOException {
    // The normal load stands for many phones, with one device token for all its connections
    // unless --devices gives each phone its own.
    StringBuilder devices = new StringBuilder("bench=" + TOKEN + ",attacker=" + ATTACKER_TOKEN);
    for (int d = 1; d < options.devices(); d++) {
      devices.append(",phone").append(d).append('=').append(deviceToken(d));
    }
    Map<String, String> extra = new HashMap<>(variables);
    extra.put("BOLO_MAX_BODIES_PER_DEVICE", Integer.toString(options.connections() + 14));
    return BenchRun.startGateway(
        root, work, port, providerPort, devices.toString(), options.heap(), extra);
  }
}
