package dev.bolo.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A gateway's first seconds, with and without the start-up cache that {@code ./bolo} makes: each
 * run starts a fresh {@code ./bolo serve} on the provider stand-in, times it until {@code /readyz}
 * says ready, loads it at once for {@code --seconds} (the cold window), then for {@code --warmup}
 * unmeasured seconds, then for {@code --seconds} again (warm); every process is separate and the
 * load comes from Debian's {@code wrk}. Besides the cache, a third gateway warms its request path
 * up before its port opens ({@code BOLO_WARMUP}). The variants take turns in a rotating order, so
 * each meets the machine alike; the table reports medians and the median of the per-run cold/warm
 * ratios, with the gateway's CPU per request. A run with the cache checks in the JVM's own log that
 * the cache was used.
 *
 * <p>Usage: {@code bolo-bench/run ColdStart [--rounds 3] [--seconds 8] [--warmup 45] [--connections
 * 50] [--note-kb 200] [--heap 256m]} ({@link GatewayLoadOptions}; {@code --rounds} is the number of
 * runs of each variant).
 */
public final class ColdStart {

  /**
   * The gateways compared: with the start-up cache, without it, and with the cache and a warm-up of
   * {@value #WARMUP} before the port opens ({@code BOLO_WARMUP}).
   */
  private static final List<String> VARIANTS = List.of("cache", "no cache", "cache + warm-up");

  static final String WARMUP = "30s";

  private ColdStart() {}

  /** One fresh gateway's start: its time to ready, its first seconds and its warm seconds. */
  record Run(
      String variant, long readyMillis, LoadResult cold, LoadResult warm, boolean cacheUsed) {}

  public static void main(String[] args) throws Exception {
    GatewayLoadOptions options = GatewayLoadOptions.parse(args);
    try (HarnessRun harness = HarnessRun.start("bolo-cold")) {
      Path work = harness.work();
      LoadGenerator load = LoadGenerator.prepare(work, options);
      int providerPort = BenchRun.freePort();
      harness.add(BenchRun.startStandIn(work, providerPort, options.delayMillis()));
      BenchRun.awaitPort(providerPort);
      List<Run> runs =
          rounds(
              options,
              VARIANTS,
              (variant, round) -> once(harness, load, options, providerPort, variant, round));
      report(harness, options, runs, VARIANTS, "cold-start", "");
      harness.finished();
    }
  }

  /** Starts one fresh gateway of a variant for a round, measures it and stops it. */
  @FunctionalInterface
  interface Start {
    Run run(String variant, int round) throws Exception;
  }

  /** Every variant once a round, in an order that rotates from round to round; each run printed. */
  static List<Run> rounds(GatewayLoadOptions options, List<String> variants, Start start)
      throws Exception {
    List<Run> runs = new ArrayList<>();
    for (int round = 1; round <= options.rounds(); round++) {
      List<String> order = new ArrayList<>(variants);
      java.util.Collections.rotate(order, round - 1);
      for (String variant : order) {
        Run run = start.run(variant, round);
        System.out.printf(
            "run %d %-22s ready after %d ms; first %d s: %s; warm: %s%s%n",
            round,
            variant,
            run.readyMillis(),
            options.seconds(),
            run.cold(),
            run.warm(),
            run.cacheUsed() ? "" : " (cache NOT used)");
        runs.add(run);
      }
    }
    return runs;
  }

  /** Prints the table of the runs and writes it to results/NAME-DATE.md, after {@code note}. */
  static void report(
      HarnessRun harness,
      GatewayLoadOptions options,
      List<Run> runs,
      List<String> variants,
      String name,
      String note)
      throws Exception {
    StringBuilder report = new StringBuilder();
    LoadReport.header(report, harness.root(), options);
    report.append(note);
    table(report, runs, options, variants);
    System.out.print(report);
    BenchRun.writeResults(harness.root(), name, report);
  }

  /**
   * Starts one fresh gateway of the {@code variant} ({@link #VARIANTS}) on the stand-in at {@code
   * providerPort}, measures it and stops it.
   */
  static Run once(
      HarnessRun harness,
      LoadGenerator load,
      GatewayLoadOptions options,
      int providerPort,
      String variant,
      int round)
      throws Exception {
    Path work = harness.work().resolve("run-" + round + "-" + variant.replace(' ', '-'));
    Files.createDirectories(work);
    Path aotLog = work.resolve("aot.log");
    boolean cache = !variant.equals("no cache");
    String javaOptions = cache ? "-Xlog:aot=info:file=" + aotLog : "-XX:AOTMode=off";
    int port = BenchRun.freePort();
    long started = System.nanoTime();
    Process gateway =
        BenchRun.startGateway(
            harness.root(),
            work,
            port,
            providerPort,
            "bench=" + LoadTargets.TOKEN,
            options.heap(),
            Map.of(
                "BOLO_JAVA_OPTS",
                javaOptions,
                "BOLO_WARMUP",
                variant.endsWith("warm-up") ? WARMUP : "0s",
                "BOLO_MAX_BODIES_PER_DEVICE",
                Integer.toString(options.connections() + 14)));
    try {
      return measureStart(
          load, options, variant, round, gateway.pid(), port, started, cache ? aotLog : null);
    } finally {
      gateway.destroy();
      if (!gateway.waitFor(30, TimeUnit.SECONDS)) {
        gateway.destroyForcibly();
      }
    }
  }

  /**
   * A just started gateway's run: its time to ready since {@code started}, its first {@code
   * --seconds} of load, {@code --warmup} unmeasured, {@code --seconds} warm; and whether the JVM's
   * {@code aotLog} says the start-up cache was used (null: started without one).
   */
  static Run measureStart(
      LoadGenerator load,
      GatewayLoadOptions options,
      String variant,
      int round,
      long pid,
      int port,
      long started,
      @Nullable Path aotLog)
      throws Exception {
    BenchRun.awaitReady(port);
    long ready = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    String url = "http://127.0.0.1:" + port + "/v1/audio/transcriptions";
    LoadResult cold = measured(load, pid, url, options.seconds(), "c" + round);
    load.run(url, LoadTargets.TOKEN, options.warmupSeconds(), "w" + round);
    LoadResult warm = measured(load, pid, url, options.seconds(), "m" + round);
    boolean used =
        aotLog == null
            || (Files.exists(aotLog)
                && Files.readString(aotLog).contains("Using AOT-linked classes: true"));
    return new Run(variant, ready, cold, warm, used);
  }

  /**
   * {@code seconds} of load on {@code url}, with the CPU time of the process {@code pid} and every
   * process it started (a container's JVM under {@code unshare}) over the requests answered.
   */
  static LoadResult measured(LoadGenerator load, long pid, String url, int seconds, String tag)
      throws Exception {
    long cpuBefore = ProcessStats.treeCpuMillis(pid);
    LoadResult result = load.run(url, LoadTargets.TOKEN, seconds, tag);
    return result.withServerCpuMillis(ProcessStats.treeCpuMillis(pid) - cpuBefore);
  }

  /** The table of the runs: one row per variant, medians over its runs. */
  static void table(StringBuilder out, List<Run> runs, GatewayLoadOptions options) {
    table(out, runs, options, VARIANTS);
  }

  /** The table of the runs of {@code variants}; a variant named "… no cache" runs without one. */
  static void table(
      StringBuilder out, List<Run> runs, GatewayLoadOptions options, List<String> variants) {
    out.append(
        String.format(
            Locale.ROOT,
            "%n| gateway | runs | ready after (ms) | first %d s: ok req/s | p99 ms | CPU ms/req |"
                + " warm: ok req/s | p99 ms | CPU ms/req | first %d s / warm (median of runs) |"
                + " cache used |%n|---|---|---|---|---|---|---|---|---|---|---|%n",
            options.seconds(),
            options.seconds()));
    for (String variant : variants) {
      List<Run> of = runs.stream().filter(r -> r.variant().equals(variant)).toList();
      if (of.isEmpty()) {
        continue;
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.0f | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %s |%n",
              variant,
              of.size(),
              LoadReport.median(of.stream().map(r -> (double) r.readyMillis()).toList()),
              LoadReport.median(of.stream().map(r -> r.cold().okPerSecond()).toList()),
              LoadReport.median(of.stream().map(r -> r.cold().p99Micros() / 1000.0).toList()),
              LoadReport.median(of.stream().map(r -> r.cold().serverCpuPerRequest()).toList()),
              LoadReport.median(of.stream().map(r -> r.warm().okPerSecond()).toList()),
              LoadReport.median(of.stream().map(r -> r.warm().p99Micros() / 1000.0).toList()),
              LoadReport.median(of.stream().map(r -> r.warm().serverCpuPerRequest()).toList()),
              LoadReport.median(
                  of.stream().map(r -> r.cold().okPerSecond() / r.warm().okPerSecond()).toList()),
              !variant.endsWith("no cache")
                  ? of.stream().filter(Run::cacheUsed).count() + " of " + of.size()
                  : "–"));
    }
  }
}
