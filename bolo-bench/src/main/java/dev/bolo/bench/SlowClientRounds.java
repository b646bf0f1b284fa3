package dev.bolo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's figures with and without slow clients holding connections, side by side: each round
 * loads the gateway quietly, then again while {@link SlowClients} (its own JVM) holds {@code
 * --attackers} connections open with the attackers' own device token.
 */
final class SlowClientRounds {

  private SlowClientRounds() {}

  /** Runs the rounds, printing each as it comes, and appends their table to {@code out}. */
  static void run(
      StringBuilder out,
      Path work,
      LoadGenerator load,
      LoadTargets targets,
      GatewayLoadOptions options)
      throws Exception {
    String url = targets.gatewayUrl();
    long gatewayPid = targets.gateway().pid();
    List<LoadResult> quiet = new ArrayList<>();
    List<LoadResult> underAttack = new ArrayList<>();
    HeapSampler quietHeap = new HeapSampler(url);
    HeapSampler attackHeap = new HeapSampler(url);
    long fdsBefore = ProcessStats.openFiles(gatewayPid);
    for (int round = 1; round <= options.rounds(); round++) {
      quietHeap.start();
      quiet.add(load.run(url, LoadTargets.TOKEN, options.seconds(), "q" + round));
      quietHeap.stop();
      Process attackers =
          BenchRun.start(
              work.resolve("attackers.log"),
              Map.of(),
              BenchRun.javaCommand(
                  "dev.bolo.bench.SlowClients",
                  "--port",
                  Integer.toString(targets.gatewayPort()),
                  "--connections",
                  Integer.toString(options.attackers()),
                  "--token",
                  LoadTargets.ATTACKER_TOKEN));
      try {
        // Let every attacker connect and settle before the measured load starts.
        Thread.sleep(5_000);
        attackHeap.start();
        underAttack.add(load.run(url, LoadTargets.TOKEN, options.seconds(), "a" + round));
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
    Map<String, List<LoadResult>> rows = new LinkedHashMap<>();
    rows.put("gateway, quiet", quiet);
    rows.put("gateway + " + options.attackers() + " slow clients", underAttack);
    out.append(String.format("%n### Under attack (%d slow clients)%n%n", options.attackers()));
    LoadReport.table(out, rows);
    out.append(
        String.format(
            Locale.ROOT,
            "%nPeak heap used: quiet %d MB, under attack %d MB. Open files: %d before, %d after"
                + " the attackers left. Attackers' own count: %s%n",
            quietHeap.peakUsedMb(),
            attackHeap.peakUsedMb(),
            fdsBefore,
            ProcessStats.openFiles(gatewayPid),
            lastLine(work.resolve("attackers.log"))));
  }

  private static String lastLine(Path file) throws IOException {
    if (!Files.exists(file)) {
      return "none";
    }
    List<String> lines = Files.readAllLines(file);
    return lines.isEmpty() ? "none" : lines.getLast();
  }
}
