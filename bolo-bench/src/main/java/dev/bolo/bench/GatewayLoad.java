package dev.bolo.bench;

import java.nio.file.Path;

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
 *
 * <p>{@code --rows all} runs instead every row of the gateway's performance table, each with its
 * own settings, and prints one summary ({@link GatewaySuite}): 200 KB warm with nginx, a fresh
 * gateway's first seconds, 2,000 in flight, and 20 MB notes from 100 phones.
 *
 * <p>The parts, in the order they run: {@link GatewayLoadOptions}, {@link LoadGenerator} (with the
 * {@link UploadTemplate}), {@link LoadTargets}, {@link LoadRounds}, {@link SlowClientRounds},
 * {@link DuplicateStorm}; {@link LoadReport} writes the tables.
 */
public final class GatewayLoad {

  private GatewayLoad() {}

  public static void main(String[] args) throws Exception {
    GatewayLoadOptions options = GatewayLoadOptions.parse(args);
    if (!options.rows().isEmpty()) {
      GatewaySuite.run(options);
      return;
    }
    try (HarnessRun harness = HarnessRun.start("bolo-load")) {
      Path root = harness.root();
      LoadGenerator load = LoadGenerator.prepare(harness.work(), options);
      LoadTargets targets = LoadTargets.start(harness, options);
      StringBuilder report = new StringBuilder();
      LoadReport.header(report, root, options);
      System.out.print(report);

      LoadRounds rounds = new LoadRounds(load, targets, options);
      rounds.warmUp();
      StringBuilder table = new StringBuilder();
      rounds.measure(table);
      boolean gatewayMeasured = targets.url("gateway") != null;
      if (options.attackers() > 0 && gatewayMeasured) {
        SlowClientRounds.run(table, harness.work(), load, targets, options);
      }
      if (options.copies() > 1 && gatewayMeasured) {
        DuplicateStorm.run(table, targets.providerPort(), targets.gatewayPort(), options);
      }
      System.out.print(table);
      report.append(table);
      BenchRun.writeResults(root, "gateway-load", report);
      harness.finished();
    }
  }
}
