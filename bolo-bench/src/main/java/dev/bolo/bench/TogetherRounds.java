package dev.bolo.bench;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * Rounds in which every target is loaded at the same time, each by its own wrk over an equal share
 * of {@code --connections}, and each gateway's CPU counted over its own run: what the machine does
 * to one target in a round (a neighbour on the host, the clock, a noisy build beside it) it does to
 * all of them, so their ratios in a round hold where the rounds of {@link LoadRounds} (one target
 * after the other) differ by a quarter on a shared machine. Only the servers' CPU is kept: the
 * stand-in and the wrk processes serve every target at once.
 */
final class TogetherRounds {

  /** The JIT compiler's share of a gateway's CPU, in %, below which it has settled. */
  static final double SETTLED_PERCENT = 3;

  /** At most this many 10 s steps of load are added to the warm-up for the JIT to settle. */
  static final int MAX_SETTLING = 18;

  /**
   * The role of a gateway's CPU without its JIT compiler threads': what its notes cost once it has
   * compiled its code, which at a few dozen notes a second takes many minutes.
   */
  static final String WITHOUT_JIT = "server without JIT";

  private final LoadGenerator load;
  private final LoadTargets targets;
  private final GatewayLoadOptions options;
  private final List<Double> loadAverages = new ArrayList<>();

  TogetherRounds(LoadGenerator load, LoadTargets targets, GatewayLoadOptions options) {
    this.load = load;
    this.targets = targets;
    this.options = options;
  }

  /** The connections each target gets: {@code --connections} shared out, at least one. */
  int connectionsEach() {
    return Math.max(1, options.connections() / targets.urls().size());
  }

  /**
   * {@code --warmup} seconds of unmeasured load on all targets at once (over an equal share of
   * {@code --warmup-connections} each), then more, 10 s at a time, until no gateway's JIT compiler
   * threads took more than {@value #SETTLED_PERCENT} % of its CPU in the last 10 s (at most {@value
   * #MAX_SETTLING} times): at a few dozen notes a second a gateway still compiles minutes after it
   * starts, a quarter of its CPU, and more for the traced one, whose request path holds more code.
   * Returns the requests each answered.
   */
  Map<String, Long> warmUp() throws Exception {
    Map<String, Long> answered = new LinkedHashMap<>();
    int warming = Math.max(1, options.warmupConnections() / targets.urls().size());
    all(options.warmupSeconds(), "warm", warming)
        .forEach((name, result) -> answered.merge(name, result.requests(), Long::sum));
    for (int step = 1; step <= MAX_SETTLING; step++) {
      Map<String, ProcessStats.ThreadTimes> before = targets.threadCpu();
      // A short tag: it begins the notes' 8-character nonce, whose rest is the clock's, so the
      // steps' notes stay apart ("settle10" would have left no room and met "settle1" + "0").
      all(10, "s" + step, warming)
          .forEach((name, result) -> answered.merge(name, result.requests(), Long::sum));
      Map<String, ProcessStats.ThreadTimes> after = targets.threadCpu();
      Map<String, String> compiling = new LinkedHashMap<>();
      boolean settled = true;
      for (String name : after.keySet()) {
        double share = compilerShare(before.get(name), after.get(name));
        compiling.put(name, String.format(java.util.Locale.ROOT, "%.1f %%", share));
        settled &= share <= SETTLED_PERCENT;
      }
      System.out.println("warm-up: the JIT compiler's share of each gateway's CPU " + compiling);
      if (settled) {
        break;
      }
    }
    return answered;
  }

  /** The JIT compiler's share of the CPU a gateway's threads spent between two readings, in %. */
  static double compilerShare(
      ProcessStats.@Nullable ThreadTimes before, ProcessStats.@Nullable ThreadTimes after) {
    if (before == null || after == null) {
      return 0;
    }
    Map<String, Long> spent = after.spentSince(before);
    long total = spent.values().stream().mapToLong(Long::longValue).sum();
    long compiler = compilerNanos(spent);
    return total == 0 ? 0 : 100.0 * compiler / total;
  }

  /** The CPU a gateway's JIT compiler threads spent between two readings, in ms. */
  static long compilerMillis(ProcessStats.ThreadTimes before, ProcessStats.ThreadTimes after) {
    return compilerNanos(after.spentSince(before)) / 1_000_000;
  }

  private static long compilerNanos(Map<String, Long> spent) {
    return spent.entrySet().stream()
        .filter(thread -> thread.getKey().contains(COMPILER))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** The JIT compiler's threads, as Linux names them ({@code C2 CompilerThre}). */
  static final String COMPILER = "CompilerThre";

  /** The machine's load average over the last minute when each round ended, in order. */
  List<Double> loadAverages() {
    return List.copyOf(loadAverages);
  }

  /** Runs the rounds, printing each target's figures as they come; each target's rounds. */
  Map<String, List<LoadResult>> measure() throws Exception {
    Map<String, List<LoadResult>> results = new LinkedHashMap<>();
    HttpClient settle = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (int round = 1; round <= options.rounds(); round++) {
      // The stand-in finishes the calls of the round before, each taking --delay-ms.
      Thread.sleep(options.delayMillis() + 1_000);
      ProviderCalls.countOnceQuiet(settle, targets.providerPort());
      for (var result : all(options.seconds(), "r" + round, connectionsEach()).entrySet()) {
        results.computeIfAbsent(result.getKey(), k -> new ArrayList<>()).add(result.getValue());
        System.out.printf(
            java.util.Locale.ROOT,
            "round %d %-9s %s, %.3f ms CPU per note%n",
            round,
            result.getKey(),
            result.getValue(),
            result.getValue().serverCpuPerRequest());
      }
      loadAverages.add(
          Double.parseDouble(
              java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                  .split(" ")[0]));
    }
    return results;
  }

  /** Every target loaded for {@code seconds} at once, with its server's CPU over its own run. */
  private Map<String, LoadResult> all(int seconds, String tag, int connections) throws Exception {
    Map<String, Future<LoadResult>> running = new LinkedHashMap<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (var target : targets.urls().entrySet()) {
        String name = target.getKey();
        long pid = targets.serverPid(name);
        running.put(
            name,
            pool.submit(
                () -> {
                  long before = ProcessStats.treeCpuMillis(pid);
                  ProcessStats.ThreadTimes threadsBefore = ProcessStats.threads(pid);
                  LoadResult result =
                      load.run(
                          target.getValue(), LoadTargets.tokenFor(name), seconds, tag, connections);
                  long cpu = ProcessStats.treeCpuMillis(pid) - before;
                  long jit = compilerMillis(threadsBefore, ProcessStats.threads(pid));
                  return new LoadResult(
                      result.requests(),
                      result.durationMicros(),
                      result.p50Micros(),
                      result.p99Micros(),
                      result.statusErrors(),
                      result.timeouts(),
                      result.socketErrors(),
                      Map.of(LoadResult.SERVER, cpu, WITHOUT_JIT, cpu - jit));
                }));
      }
      Map<String, LoadResult> results = new LinkedHashMap<>();
      for (var result : running.entrySet()) {
        results.put(result.getKey(), result.getValue().get());
      }
      return results;
    }
  }
}
