package dev.bolo.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What exporting a note's spans costs in CPU, thread by thread, where JMH sees only the thread that
 * makes the spans: one process makes {@link NoteSpansBenchmark}'s five spans and the charge's event
 * for {@code --notes} notes at a time, with traces off and with traces on at each of {@code
 * --batches} (the batch span processor's most spans an export, {@code
 * OTEL_BSP_MAX_EXPORT_BATCH_SIZE}), each its own SDK exporting to its own {@link OtlpSink} every
 * 200 ms, the variants in turn within each of {@code --rounds} rounds after five of warm-up, with
 * 1.2 s after each burst for its exports to go out.
 *
 * <p>CPU is read per thread ({@link ProcessStats#threads}: {@code schedstat}, in nanoseconds, by
 * thread id), the GC's and the JIT compiler's threads included, and given again without the
 * compiler's, which still compiles some of the export's code after the warm-up), less the sinks'
 * threads (a collector runs elsewhere), and charged to the variant whose turn it was. The variants
 * share the process, so each figure also holds the others' idle work (their processors' timers):
 * the {@code off} row shows that floor. Per variant the report gives the CPU per note, each thread
 * group's (name without digits, as the kernel keeps it, 15 characters), and the exports and spans
 * its sink received a round, which show whether every span went out and in how many exports.
 * Results go to {@code results/export-cost-*.md}.
 *
 * <pre>bolo-bench/run ExportCost --notes 2000 --rounds 12 --batches 512,2048</pre>
 */
public final class ExportCost {

  /** The most spans each processor holds: every burst's spans (six a note) up to a sixth of it. */
  private static final int QUEUE = 65_536;

  /** The sinks' threads: their pool, the JDK HttpServer's dispatcher and its idle timer. */
  private static final List<String> SINK_THREADS =
      List.of(OtlpSink.THREAD, "HTTP-Dispatche", "idle-timeout");

  private ExportCost() {}

  public static void main(String[] args) throws Exception {
    BenchArgs options = BenchArgs.parse(args);
    String unknown = options.unknownName(List.of("--notes", "--rounds", "--batches"));
    int notes = options.integer("--notes", 2000);
    int rounds = options.integer("--rounds", 12);
    LinkedHashSet<Integer> batches = new LinkedHashSet<>();
    for (String batch : options.list("--batches", "512,2048")) {
      batches.add(Integer.parseInt(batch.trim()));
    }
    if (unknown != null
        || notes < 1
        || notes * 6 > QUEUE
        || rounds < 1
        || batches.stream().anyMatch(b -> b < 1 || b > QUEUE)) {
      System.err.println(
          "ExportCost: --notes 1-"
              + QUEUE / 6
              + ", --rounds 1 or more, --batches of 1-"
              + QUEUE
              + ", comma-separated;"
              + (unknown == null ? "" : " no option " + unknown));
      System.exit(2);
    }
    System.setProperty("otel.bsp.schedule.delay", "200");
    System.setProperty("otel.bsp.max.queue.size", Integer.toString(QUEUE));
    Map<String, NoteSpansBenchmark> variants = new LinkedHashMap<>();
    variants.put("off", note("off", Map.of()));
    for (int batch : batches) {
      variants.put(
          "on, batches of " + batch,
          note("on", Map.of("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", Integer.toString(batch))));
    }
    Blackhole hole =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is"
                + " dangerous.");
    List<String> names = new ArrayList<>(variants.keySet());
    long self = ProcessHandle.current().pid();
    Map<String, Map<String, List<Double>>> measured = new LinkedHashMap<>();
    // Five rounds of warm-up, then the measured ones, the variants' order turned each round.
    for (int round = -5; round < rounds; round++) {
      for (int i = 0; i < names.size(); i++) {
        String name = names.get((i + Math.max(round, 0)) % names.size());
        NoteSpansBenchmark variant = Objects.requireNonNull(variants.get(name));
        ProcessStats.ThreadTimes before = ProcessStats.threads(self);
        long exports = variant.exports();
        long spans = variant.spans();
        for (int n = 0; n < notes; n++) {
          variant.note(hole);
        }
        Thread.sleep(1_200);
        Map<String, Long> spent = ProcessStats.threads(self).spentSince(before);
        if (round < 0) {
          continue;
        }
        Map<String, List<Double>> row = measured.computeIfAbsent(name, v -> new TreeMap<>());
        double process = 0;
        double compiled = 0;
        for (var group : spent.entrySet()) {
          double used = group.getValue() / 1e3 / notes;
          if (SINK_THREADS.stream().noneMatch(group.getKey()::startsWith)) {
            process += used;
            compiled += group.getKey().contains(TogetherRounds.COMPILER) ? used : 0;
            row.computeIfAbsent(group.getKey(), g -> new ArrayList<>()).add(used);
          }
        }
        row.computeIfAbsent(" CPU", g -> new ArrayList<>()).add(process);
        row.computeIfAbsent(" CPU without", g -> new ArrayList<>()).add(process - compiled);
        row.computeIfAbsent(" exports", g -> new ArrayList<>())
            .add((double) (variant.exports() - exports));
        row.computeIfAbsent(" spans", g -> new ArrayList<>())
            .add((double) (variant.spans() - spans));
      }
    }
    for (NoteSpansBenchmark variant : variants.values()) {
      variant.stop();
    }
    Path root = Path.of(System.getProperty("bolo.root", "."));
    StringBuilder report = new StringBuilder("# What exporting a note's spans costs\n\n");
    report.append(BenchRun.machineLines(root));
    report.append(
        String.format(
            Locale.ROOT,
            "- `bolo-bench/run ExportCost --notes %d --rounds %d --batches %s`: %d notes a burst,"
                + " the variants in turn, %d measured rounds after 5%n%n",
            notes,
            rounds,
            String.join(",", batches.stream().map(String::valueOf).toList()),
            notes,
            rounds));
    report.append(
        "| variant | CPU per note, µs (median, middle half) | the same without the JIT compiler's"
            + " threads | exports, spans a round (median) | thread groups from 0.5 µs a note"
            + " (median) |\n|---|---|---|---|---|\n");
    for (String name : names) {
      Map<String, List<Double>> row = measured.getOrDefault(name, Map.of());
      StringBuilder threads = new StringBuilder();
      row.forEach(
          (group, used) -> {
            double median = LoadReport.median(used);
            if (!group.startsWith(" ") && median >= 0.5) {
              threads.append(String.format(Locale.ROOT, "%s %.1f, ", group, median));
            }
          });
      report.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f, %.0f | %s |%n",
              name,
              spread(row.getOrDefault(" CPU", List.of(0.0))),
              spread(row.getOrDefault(" CPU without", List.of(0.0))),
              LoadReport.median(row.getOrDefault(" exports", List.of(0.0))),
              LoadReport.median(row.getOrDefault(" spans", List.of(0.0))),
              threads.toString().replaceAll(", $", "")));
    }
    System.out.print(report);
    BenchRun.writeResults(root, "export-cost", report);
    System.exit(0);
  }

  /** The median and the middle half, as {@link PooledRatios} reads its rounds. */
  private static String spread(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return String.format(
        Locale.ROOT,
        "%.1f (%.1f–%.1f)",
        LoadReport.median(sorted),
        sorted.get(sorted.size() / 4),
        sorted.get((sorted.size() * 3 - 1) / 4));
  }

  private static NoteSpansBenchmark note(String traces, Map<String, String> more) throws Exception {
    NoteSpansBenchmark note = new NoteSpansBenchmark();
    note.traces = traces;
    note.more = more;
    note.start();
    return note;
  }
}
