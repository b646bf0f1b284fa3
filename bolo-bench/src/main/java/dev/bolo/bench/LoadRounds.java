package dev.bolo.bench;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The measured part of {@link GatewayLoad}: every target warmed up, then each round every target
 * loaded for the same time, one after the other, with the CPU its server spent and the gateways'
 * heap sampled.
 */
final class LoadRounds {

  private final LoadGenerator load;
  private final LoadTargets targets;
  private final GatewayLoadOptions options;
  private final List<Double> loadAverages = new ArrayList<>();

  LoadRounds(LoadGenerator load, LoadTargets targets, GatewayLoadOptions options) {
    this.load = load;
    this.targets = targets;
    this.options = options;
  }

  /**
   * {@code --warmup} seconds of unmeasured load on every target; returns the requests each
   * answered.
   */
  Map<String, Long> warmUp() throws Exception {
    Map<String, Long> answered = new LinkedHashMap<>();
    for (var target : targets.urls().entrySet()) {
      // A gateway serves for days: measure it after the JIT has compiled its request path (on
      // two cores that takes tens of seconds of load), as JMH measures after its warm-up.
      LoadResult result =
          load.run(
              target.getValue(),
              LoadTargets.tokenFor(target.getKey()),
              options.warmupSeconds(),
              "warm",
              options.warmupConnections());
      answered.put(target.getKey(), result.requests());
    }
    return answered;
  }

  /** The machine's load average over the last minute when each round ended, in order. */
  List<Double> loadAverages() {
    return List.copyOf(loadAverages);
  }

  /**
   * Runs the rounds, printing each target's figures as they come, appends the table and the
   * gateway's heap, resident set and open files to {@code out}, and returns each target's rounds.
   */
  Map<String, List<LoadResult>> measure(StringBuilder out) throws Exception {
    Map<String, List<LoadResult>> results = new LinkedHashMap<>();
    HeapSampler heap = new HeapSampler(targets.gatewayUrl());
    // Sampled the same way, so that both gateways bear the sampling alike.
    String baselineUrl = targets.url("baseline");
    HeapSampler baselineHeap = baselineUrl == null ? null : new HeapSampler(baselineUrl);
    long gatewayPid = targets.gateway().pid();
    long fdsBefore = ProcessStats.openFiles(gatewayPid);
    HttpClient settle = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (int round = 1; round <= options.rounds(); round++) {
      for (var target : inRoundOrder(targets.urls(), round)) {
        // The stand-in finishes the calls the previous target left (each takes --delay-ms) before
        // the next target's load begins.
        Thread.sleep(options.delayMillis() + 1_000);
        ProviderCalls.countOnceQuiet(settle, targets.providerPort());
        String name = target.getKey();
        HeapSampler sampler =
            name.equals("gateway") ? heap : name.equals("baseline") ? baselineHeap : null;
        if (sampler != null) {
          sampler.start();
        }
        Map<String, Long> cpuBefore = cpuMillis(targets.processes(name));
        LoadResult result =
            load.run(target.getValue(), LoadTargets.tokenFor(name), options.seconds(), "r" + round);
        if (sampler != null) {
          sampler.stop();
        }
        for (var process : cpuMillis(targets.processes(name)).entrySet()) {
          result =
              result.withCpuMillis(
                  process.getKey(),
                  process.getValue() - cpuBefore.getOrDefault(process.getKey(), 0L));
        }
        results.computeIfAbsent(name, k -> new ArrayList<>()).add(result);
        System.out.printf("round %d %-8s %s%n", round, name, result);
      }
      loadAverages.add(
          Double.parseDouble(
              java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                  .split(" ")[0]));
    }
    LoadReport.table(out, results);
    out.append(
        String.format(
            Locale.ROOT,
            "%nGateway: peak heap used %d MB (its /metrics, sampled every second), peak RSS %d MB,"
                + " open files %d before the rounds and %d after.%n",
            heap.peakUsedMb(),
            ProcessStats.peakRssMb(gatewayPid),
            fdsBefore,
            ProcessStats.openFiles(gatewayPid)));
    return results;
  }

  /** Each process's CPU time so far (with the processes it started), by role. */
  static Map<String, Long> cpuMillis(Map<String, Long> processes) throws java.io.IOException {
    Map<String, Long> millis = new LinkedHashMap<>();
    for (var process : processes.entrySet()) {
      millis.put(process.getKey(), ProcessStats.treeCpuMillis(process.getValue()));
    }
    return millis;
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
}
