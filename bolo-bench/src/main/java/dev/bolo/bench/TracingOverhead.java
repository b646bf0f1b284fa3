package dev.bolo.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What traces cost the gateway: the same gateway of this checkout started four times by {@code
 * ./bolo serve}, each in its own process on the same stand-in provider, and loaded by turns in the
 * same rounds ({@link LoadRounds}, the order rotated each round) with unique notes from wrk:
 *
 * <ul>
 *   <li>{@code gateway}: traces off (no {@code OTEL_*} variable);
 *   <li>{@code traced}: traces on, every note sampled, the SDK's batch span processor exporting
 *       over OTLP/HTTP to a collector on loopback that decodes and counts them ({@link OtlpSink});
 *   <li>{@code tenth}: the same, a tenth of the notes sampled ({@code
 *       OTEL_TRACES_SAMPLER=parentbased_traceidratio}, {@code OTEL_TRACES_SAMPLER_ARG=0.1});
 *   <li>{@code unsampled}: the same, with {@code OTEL_TRACES_SAMPLER=always_off};
 * </ul>
 *
 * and with {@code --baseline DIR} another checkout's gateway (the code before tracing) in the same
 * rounds, traced as {@code traced} with {@code --baseline-traced} (to compare two builds' traces).
 * With {@code --replicas=N}, traces off and every note sampled (a tenth with {@code
 * --replicas-tenth}, none with {@code --replicas-unsampled}, untraced too with {@code
 * --replicas-control}, several of them at once when named together, {@code --replicas-traced} for
 * every note sampled among them) each run in N processes, pooled ({@link PooledRatios}), since one
 * process's JIT luck moves its CPU per note by a few per cent. The figure is the gateway process's
 * CPU time (user + system, from {@code /proc}) over the notes it answered, per round, and each
 * variant's ratio to traces off in the same round; medians over rounds. Then, with {@code --copies}
 * above 1, a duplicate storm on each gateway by turns, its CPU per request measured the same way
 * ({@link TracingStorms}), and with {@code --replicas} pooled as the rounds are. At the end the
 * sink's count of spans per service and name shows what the traced gateway sent (and that the
 * unsampled one sent nothing).
 *
 * <p>With {@code --together}, every target is loaded at the same time in each round ({@link
 * TogetherRounds}), each over an equal share of {@code --connections}: the rows of a round then
 * bear the same machine, which a shared one makes differ by a quarter from one turn to the next.
 * Either way, each gateway's CPU by thread over the rounds shows the exporter's threads' share.
 *
 * <p>Usage: {@code bolo-bench/run TracingOverhead [--together] [--connections 50] [--delay-ms 200]
 * [--seconds 10] [--rounds 5] [--warmup 60] [--copies 4] [--storm-notes 100] [--baseline DIR
 * [--baseline-traced]] [--replicas=N [--replicas-traced|-tenth|-unsampled|-control …]]}, and the
 * rest of {@link GatewayLoad}'s options. The stand-in answers after {@code --delay-ms}, as a
 * provider does not answer at once; the load then stays below what the two cores can carry.
 */
public final class TracingOverhead {

  private TracingOverhead() {}

  public static void main(String[] args) throws Exception {
    boolean together = Arrays.asList(args).contains("--together");
    boolean baselineTraced = Arrays.asList(args).contains("--baseline-traced");
    int replicas = replicas(args);
    List<String> replicated = replicatedGroups(args);
    GatewayLoadOptions options =
        GatewayLoadOptions.parse(
            withDefaults(
                Arrays.stream(args)
                    .filter(a -> !a.equals("--together") && !a.equals("--baseline-traced"))
                    .filter(a -> !a.startsWith("--replicas"))
                    .toArray(String[]::new),
                "--targets",
                "gateway",
                "--delay-ms",
                "200",
                "--rounds",
                "5"));
    try (HarnessRun harness = HarnessRun.start("bolo-tracing");
        OtlpSink sink = OtlpSink.start()) {
      Path root = harness.root();
      LoadGenerator load = LoadGenerator.prepare(harness.work(), options);
      LoadTargets targets =
          LoadTargets.start(
              harness,
              options,
              TracingVariants.of(sink.endpoint(), baselineTraced, replicas, replicated));
      StringBuilder report = new StringBuilder();
      LoadReport.header(report, root, options);
      report.replace(0, report.indexOf("\n"), "# What traces cost the gateway");
      report.append(
          "- rows: `gateway` traces off; `traced` OTEL_EXPORTER_OTLP_ENDPOINT at a collector on"
              + " loopback (the SDK's batch span processor, its defaults), every note sampled;"
              + (replicas > 1
                  ? format(
                      " each in %d processes (`off-2`… and `%s-2`… the others)%s",
                      replicas,
                      String.join("-2`…, `", replicated),
                      String.join("", replicated.stream().map(TracingOverhead::described).toList()))
                  : " `tenth` the same with OTEL_TRACES_SAMPLER=parentbased_traceidratio and"
                      + " OTEL_TRACES_SAMPLER_ARG=0.1; `unsampled` the same with"
                      + " OTEL_TRACES_SAMPLER=always_off")
              + (options.baseline() == null
                  ? ""
                  : "; `baseline` "
                      + options.baseline()
                      + (baselineTraced ? ", traced as `traced`" : ""))
              + "\n\n");
      System.out.print(report);

      Map<String, Long> answered;
      StringBuilder table = new StringBuilder();
      Map<String, List<LoadResult>> results;
      List<Double> loadAverages;
      Map<String, ProcessStats.ThreadTimes> threadsBefore;
      if (together) {
        TogetherRounds rounds = new TogetherRounds(load, targets, options);
        answered = new LinkedHashMap<>(rounds.warmUp());
        threadsBefore = targets.threadCpu();
        results = rounds.measure();
        loadAverages = rounds.loadAverages();
        table.append(
            format(
                "%nAll targets loaded at the same time in each round, %d connections each.%n",
                rounds.connectionsEach()));
      } else {
        LoadRounds rounds = new LoadRounds(load, targets, options);
        answered = new LinkedHashMap<>(rounds.warmUp());
        threadsBefore = targets.threadCpu();
        results = rounds.measure(table);
        loadAverages = rounds.loadAverages();
      }
      results.forEach(
          (name, runs) ->
              answered.merge(name, runs.stream().mapToLong(LoadResult::requests).sum(), Long::sum));
      overhead(table, results, loadAverages, LoadResult.SERVER, "Gateway CPU per note");
      if (together) {
        overhead(
            table,
            results,
            loadAverages,
            TogetherRounds.WITHOUT_JIT,
            "Gateway CPU per note, its JIT compiler's threads left out");
      }
      if (replicas > 1) {
        PooledRatios.appendGroups(
            table,
            results,
            replicated,
            List.of(LoadResult.SERVER, TogetherRounds.WITHOUT_JIT),
            role ->
                role.equals(LoadResult.SERVER)
                    ? "Gateway CPU per note"
                    : "Gateway CPU per note, its JIT compiler's threads left out");
      }
      threads(table, threadsBefore, targets.threadCpu());
      if (options.copies() > 1) {
        Map<String, List<LoadResult>> storms = TracingStorms.run(table, targets, options, answered);
        if (replicas > 1) {
          PooledRatios.appendGroups(
              table,
              storms,
              replicated,
              List.of(LoadResult.SERVER),
              role -> "Duplicate storms, gateway CPU per request");
        }
      }
      // The batch processor sends what it holds every 5 s: wait for its last batch.
      Thread.sleep(7_000);
      spansReceived(table, sink, answered);
      System.out.print(table);
      report.append(table);
      BenchRun.writeResults(root, "tracing-overhead", report);
      harness.finished();
    }
  }

  /**
   * The groups {@code --replicas-tenth}, {@code -unsampled}, {@code -control} and {@code -traced}
   * name, in their order, each run in {@code --replicas=N} processes beside the untraced ones;
   * {@code traced} (every note sampled) when none is named. Several in one run put their costs in
   * the same rounds, where separate runs differ by more than the costs between them.
   */
  static List<String> replicatedGroups(String[] args) {
    List<String> groups =
        Arrays.stream(args)
            .filter(a -> a.startsWith("--replicas-"))
            .map(a -> a.substring("--replicas-".length()))
            .distinct()
            .toList();
    return groups.isEmpty() ? List.of("traced") : groups;
  }

  /** How {@code group}'s processes are traced, as the report's list of rows says it. */
  private static String described(String group) {
    return switch (group) {
      case "tenth" ->
          ", `tenth` sampling a tenth of their notes"
              + " (OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1)";
      case "unsampled" -> ", `unsampled` sampling none (OTEL_TRACES_SAMPLER=always_off)";
      case "control" -> ", `control` untraced too: an A/A control";
      default -> "";
    };
  }

  /** {@code --replicas=N}: how many processes each of traces off and on runs in; 1 without it. */
  private static int replicas(String[] args) {
    return Arrays.stream(args)
        .filter(a -> a.startsWith("--replicas="))
        .mapToInt(a -> Integer.parseInt(a.substring("--replicas=".length())))
        .findFirst()
        .orElse(1);
  }

  /**
   * Each row's CPU per note in every round and its ratio to traces off in the same round, with the
   * medians and the machine's load average as each round ended.
   */
  private static void overhead(
      StringBuilder out,
      Map<String, List<LoadResult>> results,
      List<Double> loadAverages,
      String role,
      String title) {
    List<LoadResult> off = results.get("gateway");
    if (off == null) {
      return;
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%n## %s against traces off%n%nLoad average (1 min) as each round"
                + " ended: %s.%n%n| row | gateway CPU ms/note, each round | median | ratio to off,"
                + " each round | median ratio | middle half of the ratios |%n"
                + "|---|---|---|---|---|---|%n",
            title,
            String.join(", ", loadAverages.stream().map(l -> format("%.1f", l)).toList())));
    for (var row : results.entrySet()) {
      List<LoadResult> runs = row.getValue();
      List<Double> perNote = runs.stream().map(r -> r.cpuPerRequest(role)).toList();
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < runs.size() && i < off.size(); i++) {
        ratios.add(perNote.get(i) / off.get(i).cpuPerRequest(role));
      }
      List<Double> sorted = ratios.stream().sorted().toList();
      out.append(
          format(
              "| %s | %s | **%.3f** | %s | **%.3f** | %.3f–%.3f |%n",
              row.getKey(),
              joined(perNote, "%.3f"),
              LoadReport.median(perNote),
              joined(ratios, "%.3f"),
              LoadReport.median(ratios),
              sorted.get(sorted.size() / 4),
              sorted.get((sorted.size() * 3 - 1) / 4)));
    }
  }

  /**
   * Where each gateway's CPU went during the measured rounds, by thread (read from {@code /proc},
   * not sampled): the threads that took at least 1 % of it, which shows the exporter's own threads
   * (the batch span processor's and its HTTP client's) with their share.
   */
  private static void threads(
      StringBuilder out,
      Map<String, ProcessStats.ThreadTimes> before,
      Map<String, ProcessStats.ThreadTimes> after) {
    out.append(
        "\n## Gateway CPU by thread during the rounds\n\n| row | threads (name without digits:"
            + " share of the process's CPU in the rounds) |\n|---|---|\n");
    for (var target : after.entrySet()) {
      Map<String, Long> spent =
          target
              .getValue()
              .spentSince(
                  before.getOrDefault(target.getKey(), new ProcessStats.ThreadTimes(Map.of())));
      long total = spent.values().stream().mapToLong(Long::longValue).sum();
      List<String> shares =
          spent.entrySet().stream()
              .filter(e -> total > 0 && e.getValue() * 100 >= total)
              .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
              .map(e -> format("%s %.1f %%", e.getKey(), 100.0 * e.getValue() / total))
              .toList();
      out.append(format("| %s | %s |%n", target.getKey(), String.join(", ", shares)));
    }
  }

  /** What the sink received, by service and span name, against the notes each gateway answered. */
  private static void spansReceived(StringBuilder out, OtlpSink sink, Map<String, Long> answered) {
    out.append(
        format(
            "%n## Spans the collector received%n%n%d OTLP/HTTP exports decoded, %d requests"
                + " refused. Notes answered (warm-up, rounds, storms): %s.%n%n| service and span"
                + " name | spans |%n|---|---|%n",
            sink.exports(), sink.refused(), answered.toString()));
    sink.spans().forEach((name, count) -> out.append(format("| %s | %d |%n", name, count)));
    for (String variant : answered.keySet()) {
      long notes = answered.get(variant);
      out.append(
          format(
              "%n`%s`: %d spans for %d notes answered, %.2f per note.",
              variant,
              sink.spansOf(variant),
              notes,
              notes == 0 ? 0.0 : (double) sink.spansOf(variant) / notes));
    }
    out.append('\n');
  }

  /** {@code args} with each default pair added in front, so that a name given wins. */
  static String[] withDefaults(String[] args, String... defaults) {
    List<String> all = new ArrayList<>(Arrays.asList(defaults));
    all.addAll(Arrays.asList(args));
    return all.toArray(String[]::new);
  }

  private static String joined(List<Double> values, String pattern) {
    return String.join(", ", values.stream().map(v -> format(pattern, v)).toList());
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }
}
