package dev.bolo.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The servers {@link GatewayLoad} measures, each in its own process and started by {@link #start}:
 * the provider stand-in reached directly ({@code direct}), nginx in front of it ({@code nginx}),
 * the gateway ({@code gateway}) and, with {@code --baseline}, another checkout's gateway ({@code
 * baseline}). Immutable once started.
 */
final class LoadTargets {

  /** The device token of the normal load: one for all its connections. */
  static final String TOKEN = "bench-token-0123456789";

  /** The attackers' own device: a stolen or abused token, not the one the normal load uses. */
  static final String ATTACKER_TOKEN = "attacker-token-0123456789";

  private static final String PATH = "/v1/audio/transcriptions";

  private final Map<String, String> urls;
  private final Map<String, Long> servers;
  private final int providerPort;
  private final int gatewayPort;
  private final Process gateway;

  private LoadTargets(
      Map<String, String> urls,
      Map<String, Long> servers,
      int providerPort,
      int gatewayPort,
      Process gateway) {
    this.urls = Collections.unmodifiableMap(urls);
    this.servers = Map.copyOf(servers);
    this.providerPort = providerPort;
    this.gatewayPort = gatewayPort;
    this.gateway = gateway;
  }

  /** Starts the stand-in, nginx and the gateway (and the baseline), each once it is ready. */
  static LoadTargets start(HarnessRun run, GatewayLoadOptions options) throws Exception {
    Path root = run.root();
    Path work = run.work();
    int providerPort = BenchRun.freePort();
    Process standIn = run.add(BenchRun.startStandIn(work, providerPort, options.delayMillis()));
    int nginxPort = BenchRun.freePort();
    run.add(NginxProxy.start(work, nginxPort, providerPort, options.noteKb()));
    BenchRun.awaitPort(nginxPort);
    int gatewayPort = BenchRun.freePort();
    Process gateway = run.add(startGateway(root, work, gatewayPort, providerPort, options));
    BenchRun.awaitReady(gatewayPort);

    Map<String, String> urls = new LinkedHashMap<>();
    // The process whose CPU time each target costs (nginx's workers are not counted).
    Map<String, Long> servers = new HashMap<>();
    servers.put("direct", standIn.pid());
    servers.put("gateway", gateway.pid());
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
                  baseline, work.resolve("baseline"), baselinePort, providerPort, options));
      servers.put("baseline", other.pid());
      BenchRun.awaitReady(baselinePort);
      urls.put("baseline", url(baselinePort));
    }
    return new LoadTargets(urls, servers, providerPort, gatewayPort, gateway);
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

  /** The id of the process whose CPU time the target costs, or null where it is not counted. */
  @Nullable Long serverPid(String target) {
    return servers.get(target);
  }

  /** The device token the load sends to the target, or null where it takes none. */
  static @Nullable String tokenFor(String target) {
    return target.equals("gateway") || target.equals("baseline") ? TOKEN : null;
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
      Path root, Path work, int port, int providerPort, GatewayLoadOptions options)
      throws IOException {
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
}
