package dev.bolo.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The Markdown of {@link GatewayLoad}'s report: its head and its per-target tables. */
final class LoadReport {

  private LoadReport() {}

  /** The report's title and the run's settings: machine, load generator, sizes and times. */
  static void header(StringBuilder out, Path root, GatewayLoadOptions options) throws Exception {
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

  /**
   * One row per target: medians over its rounds, and the median of its per-round ratios to the
   * first row's same round.
   */
  static void table(StringBuilder out, Map<String, List<LoadResult>> results) {
    out.append(
        "| target | ok req/s (median) | rounds | p50 ms | p99 ms | errors | share of first row"
            + " | server CPU ms/req | server CPU / nginx's | stand-in CPU ms/req | load generator"
            + " CPU ms/req |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    List<LoadResult> nginx = results.get("nginx");
    List<LoadResult> reference = results.values().iterator().next();
    for (var row : results.entrySet()) {
      List<LoadResult> rounds = row.getValue();
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < rounds.size() && i < reference.size(); i++) {
        ratios.add(rounds.get(i).okPerSecond() / reference.get(i).okPerSecond());
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %s | %.1f | %.1f | %d | %.2f | %s | %s | %s | %s |%n",
              row.getKey(),
              median(rounds.stream().map(LoadResult::okPerSecond).toList()),
              String.join(
                  ", ",
                  rounds.stream()
                      .map(r -> String.format(Locale.ROOT, "%.0f", r.okPerSecond()))
                      .toList()),
              median(rounds.stream().map(r -> r.p50Micros() / 1000.0).toList()),
              median(rounds.stream().map(r -> r.p99Micros() / 1000.0).toList()),
              rounds.stream().mapToLong(LoadResult::errors).sum(),
              median(ratios),
              cpuColumn(rounds, LoadResult.SERVER),
              nginx == null ? "–" : cpuRatio(rounds, nginx),
              cpuColumn(rounds, LoadResult.STAND_IN),
              cpuColumn(rounds, LoadResult.GENERATOR)));
    }
  }

  private static String cpuColumn(List<LoadResult> rounds, String role) {
    List<Double> perRequest =
        rounds.stream().map(r -> r.cpuPerRequest(role)).filter(v -> !v.isNaN()).toList();
    return perRequest.isEmpty() ? "–" : String.format(Locale.ROOT, "%.3f", median(perRequest));
  }

  /** The median over rounds of the server's CPU per request over nginx's in the same round. */
  private static String cpuRatio(List<LoadResult> rounds, List<LoadResult> nginx) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < rounds.size() && i < nginx.size(); i++) {
      double ratio = rounds.get(i).serverCpuPerRequest() / nginx.get(i).serverCpuPerRequest();
      if (!Double.isNaN(ratio)) {
        ratios.add(ratio);
      }
    }
    return ratios.isEmpty() ? "–" : String.format(Locale.ROOT, "%.1f×", median(ratios));
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
