package dev.bolo.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every row of the gateway's performance table in one run ({@code bolo-bench/run GatewayLoad --rows
 * all}), each with its own fresh processes and settings, and then one summary table:
 *
 * <ol>
 *   <li>{@code warm}: {@code --note-kb} (200 KB) notes on {@code --connections} (50) connections
 *       after {@code --warmup} (45 s), to the stand-in directly, through nginx and through the
 *       gateway, with every process's CPU per request;
 *   <li>{@code cold}: a fresh {@code ./bolo serve} with its defaults, loaded the same way for its
 *       first {@code --seconds} after {@code /readyz} and again warm; and the same with {@code
 *       BOLO_WARMUP} ({@link ColdStart});
 *   <li>{@code inflight}: 2,000 connections of 10 KB notes, a stand-in that takes 1.5 s per call,
 *       {@code -Xmx256m}, after 30 s at that load, direct against the gateway;
 *   <li>{@code large}: 20 MB notes from 100 phones, each its own device, after 20 s of 4
 *       connections, direct against the gateway, sent by {@link JavaLoad} with a 10 s timeout (a
 *       request over 10 s is counted as timed out).
 * </ol>
 *
 * <p>{@code --rounds} and {@code --seconds} apply to every row.
 */
final class GatewaySuite {

  static final List<String> ROWS = List.of("warm", "cold", "inflight", "large");

  private GatewaySuite() {}

  /** One row of the summary: the load, then each target's rounds. */
  private record Row(String load, Map<String, List<LoadResult>> results) {}

  static void run(GatewayLoadOptions options) throws Exception {
    List<String> rows = options.rows().equals(List.of("all")) ? ROWS : options.rows();
    for (String row : rows) {
      if (!ROWS.contains(row)) {
        throw new IllegalArgumentException("--rows takes all or some of " + ROWS + ": " + row);
      }
    }
    StringBuilder report = new StringBuilder();
    List<Row> summary = new ArrayList<>();
    List<ColdStart.Run> coldRuns = new ArrayList<>();
    Path root = HarnessRun.checkout();
    report.append("# Gateway under external load: every row in one run\n\n");
    report.append(BenchRun.machineLines(root));
    report.append(
        String.format(
            Locale.ROOT,
            "- %d rounds of %d s per target in every row; nginx %s%n",
            options.rounds(),
            options.seconds(),
            BenchRun.output(root, "nginx", "-v").replace("nginx version: ", "")));
    System.out.print(report);
    for (String row : rows) {
      switch (row) {
        case "warm" -> {
          GatewayLoadOptions warm =
              options.shaped(
                  options.connections(),
                  options.noteKb(),
                  0,
                  options.warmupSeconds(),
                  options.heap(),
                  List.of("direct", "nginx", "gateway"),
                  GatewayLoadOptions.sdkReadTimeoutSeconds(options.noteKb()),
                  "wrk",
                  1,
                  options.connections());
          String load =
              String.format(
                  Locale.ROOT,
                  "%d KB notes, %d connections, after %d s of warm-up",
                  options.noteKb(),
                  options.connections(),
                  options.warmupSeconds());
          summary.add(new Row(load, measureRow(warm, load, report)));
        }
        case "cold" -> coldRuns.addAll(coldRow(options, report));
        case "inflight" -> {
          GatewayLoadOptions inflight =
              options.shaped(
                  2000,
                  10,
                  1500,
                  30,
                  "256m",
                  List.of("direct", "gateway"),
                  GatewayLoadOptions.sdkReadTimeoutSeconds(10),
                  "wrk",
                  1,
                  2000);
          String load =
              "2,000 connections of 10 KB notes, provider 1.5 s, -Xmx256m, after 30 s at that load";
          summary.add(new Row(load, measureRow(inflight, load, report)));
        }
        case "large" -> {
          GatewayLoadOptions large =
              options.shaped(
                  100, 20_000, 0, 20, "256m", List.of("direct", "gateway"), 10, "java", 100, 4);
          String load =
              "20 MB notes, 100 phones (one device each), 10 s timeout, after 20 s of 4"
                  + " connections";
          summary.add(new Row(load, measureRow(large, load, report)));
        }
        default -> throw new IllegalStateException(row);
      }
    }
    StringBuilder table = new StringBuilder();
    summaryTable(table, summary, coldRuns);
    System.out.print(table);
    report.append(table);
    BenchRun.writeResults(root, "gateway-suite", report);
  }

  private static Map<String, List<LoadResult>> measureRow(
      GatewayLoadOptions options, String title, StringBuilder report) throws Exception {
    try (HarnessRun harness = HarnessRun.start("bolo-suite")) {
      System.out.println("\n" + title + ": warming up");
      LoadGenerator load = LoadGenerator.prepare(harness.work(), options);
      LoadTargets targets = LoadTargets.start(harness, options);
      LoadRounds rounds = new LoadRounds(load, targets, options);
      rounds.warmUp();
      StringBuilder table = new StringBuilder("\n## " + title + "\n\n");
      Map<String, List<LoadResult>> results = rounds.measure(table);
      System.out.print(table);
      report.append(table);
      harness.finished();
      return results;
    }
  }

  /** Fresh gateways with their defaults and with {@code BOLO_WARMUP}, taking turns. */
  private static List<ColdStart.Run> coldRow(GatewayLoadOptions options, StringBuilder report)
      throws Exception {
    List<ColdStart.Run> runs = new ArrayList<>();
    try (HarnessRun harness = HarnessRun.start("bolo-suite")) {
      System.out.println("\n## Cold starts");
      LoadGenerator load = LoadGenerator.prepare(harness.work(), options);
      int providerPort = BenchRun.freePort();
      harness.add(BenchRun.startStandIn(harness.work(), providerPort, 0));
      BenchRun.awaitPort(providerPort);
      for (int round = 1; round <= options.rounds(); round++) {
        List<String> order = new ArrayList<>(List.of("cache", "cache + warm-up"));
        Collections.rotate(order, round - 1);
        for (String variant : order) {
          ColdStart.Run run = ColdStart.once(harness, load, options, providerPort, variant, round);
          System.out.printf(
              "run %d %-15s ready after %d ms; first %d s: %s; warm: %s%n",
              round, variant, run.readyMillis(), options.seconds(), run.cold(), run.warm());
          runs.add(run);
        }
      }
      StringBuilder table =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%n## A fresh gateway's first %d s after /readyz, then %d s later%n",
                  options.seconds(),
                  options.warmupSeconds()));
      ColdStart.table(table, runs, options);
      System.out.print(table);
      report.append(table);
      harness.finished();
    }
    return runs;
  }

  private static void summaryTable(
      StringBuilder out, List<Row> rows, List<ColdStart.Run> coldRuns) {
    out.append(
        "\n## Summary (medians over rounds; CPU is each process's user + system time over the"
            + " requests answered)\n\n"
            + "| load | direct ok/s | nginx: share of direct, CPU ms/req | gateway ok/s | share"
            + " of direct | p50 ms | p99 ms | errors | gateway CPU ms/req | gateway CPU / nginx's"
            + " | stand-in CPU ms/req (via gateway) | load generator CPU ms/req (gateway) |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Row row : rows) {
      List<LoadResult> direct = row.results().get("direct");
      List<LoadResult> nginx = row.results().get("nginx");
      List<LoadResult> gateway = row.results().get("gateway");
      if (direct == null || gateway == null) {
        continue;
      }
      double directOk = median(direct, LoadResult::okPerSecond);
      double gatewayOk = median(gateway, LoadResult::okPerSecond);
      double gatewayCpu = median(gateway, LoadResult::serverCpuPerRequest);
      String nginxCell = "–";
      String ratio = "–";
      if (nginx != null) {
        double nginxCpu = median(nginx, LoadResult::serverCpuPerRequest);
        nginxCell =
            String.format(
                Locale.ROOT,
                "%.2f, %.3f",
                median(nginx, LoadResult::okPerSecond) / directOk,
                nginxCpu);
        ratio = String.format(Locale.ROOT, "%.1f×", gatewayCpu / nginxCpu);
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %s | %.1f | %.2f | %.0f | %.0f | %d | %.3f | %s | %.3f | %.3f |%n",
              row.load(),
              directOk,
              nginxCell,
              gatewayOk,
              gatewayOk / directOk,
              median(gateway, r -> r.p50Micros() / 1000.0),
              median(gateway, r -> r.p99Micros() / 1000.0),
              gateway.stream().mapToLong(LoadResult::errors).sum(),
              gatewayCpu,
              ratio,
              median(gateway, r -> r.cpuPerRequest(LoadResult.STAND_IN)),
              median(gateway, r -> r.cpuPerRequest(LoadResult.GENERATOR))));
    }
    for (String variant : List.of("cache", "cache + warm-up")) {
      List<ColdStart.Run> of = coldRuns.stream().filter(r -> r.variant().equals(variant)).toList();
      if (of.isEmpty()) {
        continue;
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| the first seconds after /readyz (%s): ready after %.1f s | – | – | %.1f | %.2f of"
                  + " its warm rate | – | %.0f | %d | %.3f | – | – | – |%n",
              variant.equals("cache") ? "defaults" : "BOLO_WARMUP=" + ColdStart.WARMUP,
              LoadReport.median(of.stream().map(r -> r.readyMillis() / 1000.0).toList()),
              LoadReport.median(of.stream().map(r -> r.cold().okPerSecond()).toList()),
              LoadReport.median(
                  of.stream().map(r -> r.cold().okPerSecond() / r.warm().okPerSecond()).toList()),
              LoadReport.median(of.stream().map(r -> r.cold().p99Micros() / 1000.0).toList()),
              of.stream().mapToLong(r -> r.cold().errors()).sum(),
              LoadReport.median(of.stream().map(r -> r.cold().serverCpuPerRequest()).toList())));
    }
  }

  private static double median(
      List<LoadResult> rounds, java.util.function.ToDoubleFunction<LoadResult> value) {
    return LoadReport.median(
        rounds.stream().map(r -> value.applyAsDouble(r)).filter(v -> !v.isNaN()).toList());
  }
}
