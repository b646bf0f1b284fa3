package dev.bolo.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What exporting a note's spans costs in CPU, thread by thread, where JMH sees only the thread that
 * makes the spans: one process makes {@link NoteSpansBenchmark}'s five spans and the charge's event
 * for {@code --notes} notes in a burst, with traces off and with traces on at each of {@code
 * --batches} (the batch span processor's most spans an export, {@code
 * OTEL_BSP_MAX_EXPORT_BATCH_SIZE}), each its own SDK exporting to {@link OtlpSink}, the variants in
 * turn within each of {@code --rounds} rounds. Per variant: the process's CPU per note (without the
 * sink's threads: a collector runs elsewhere), and per thread group the median of the rounds. The
 * processor exports every 200 ms here and holds up to 65,536 spans, so a burst's spans all go out,
 * in full batches, before the next variant's turn. Results go to {@code results/export-cost-*.md}.
 *
 * <pre>bolo-bench/run ExportCost --notes 2000 --rounds 12 --batches 512,2048</pre>
 */
public final class ExportCost {

  private ExportCost() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    int notes = Integer.parseInt(options.getOrDefault("notes", "2000"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "12"));
    List<String> batches = List.of(options.getOrDefault("batches", "512,2048").split(","));
    System.setProperty("otel.bsp.schedule.delay", "200");
    System.setProperty("otel.bsp.max.queue.size", "65536");
    Map<String, NoteSpansBenchmark> variants = new LinkedHashMap<>();
    variants.put("off", note("off", Map.of()));
    for (String batch : batches) {
      variants.put(
          "on, batches of " + batch,
          note("on", Map.of("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", batch.trim())));
    }
    Blackhole hole =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is"
                + " dangerous.");
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Map<String, double[]> perNote = new LinkedHashMap<>();
    Map<String, Map<String, double[]>> byThread = new LinkedHashMap<>();
    variants.keySet().forEach(name -> perNote.put(name, new double[rounds]));
    List<String> names = new ArrayList<>(variants.keySet());
    // Five rounds of warm-up, then the measured ones, the variants' order turned each round.
    for (int round = -5; round < rounds; round++) {
      for (int i = 0; i < names.size(); i++) {
        String name = names.get((i + Math.max(round, 0)) % names.size());
        Map<String, Long> before = threadCpu();
        long start = os.getProcessCpuTime();
        NoteSpansBenchmark variant = java.util.Objects.requireNonNull(variants.get(name));
        for (int n = 0; n < notes; n++) {
          variant.note(hole);
        }
        Thread.sleep(1_200);
        long spent = os.getProcessCpuTime() - start;
        Map<String, Long> after = threadCpu();
        long sink = 0;
        for (var thread : after.entrySet()) {
          long used = thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
          String group = group(thread.getKey());
          if (group.equals(SINK)) {
            sink += used;
          } else if (round >= 0) {
            byThread.computeIfAbsent(name, v -> new TreeMap<>())
                    .computeIfAbsent(group, g -> new double[rounds])[round] +=
                used / 1000.0 / notes;
          }
        }
        if (round >= 0) {
          perNote.computeIfAbsent(name, v -> new double[rounds])[round] =
              (spent - sink) / 1000.0 / notes;
        }
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
                + " the variants in turn, %d measured rounds after 5\n\n",
            notes,
            rounds,
            String.join(",", batches),
            notes,
            rounds));
    report.append("| variant | CPU per note, µs (median, middle half) | by thread, µs a note |\n");
    report.append("|---|---|---|\n");
    for (String name : names) {
      StringBuilder threads = new StringBuilder();
      byThread
          .getOrDefault(name, Map.of())
          .forEach(
              (group, used) -> {
                double median = quartiles(used)[1];
                if (median >= 0.5) {
                  threads.append(String.format(Locale.ROOT, "%s %.1f, ", group, median));
                }
              });
      double[] q = quartiles(perNote.getOrDefault(name, new double[1]));
      report.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f (%.1f–%.1f) | %s |%n",
              name,
              q[1],
              q[0],
              q[2],
              threads.toString().replaceAll(", $", "")));
    }
    System.out.print(report);
    BenchRun.writeResults(root, "export-cost", report);
    System.exit(0);
  }

  private static final String SINK = "(the sink)";

  private static NoteSpansBenchmark note(String traces, Map<String, String> more) throws Exception {
    NoteSpansBenchmark note = new NoteSpansBenchmark();
    note.traces = traces;
    note.more = more;
    note.start();
    return note;
  }

  /** A thread's group: its name without digits, the sink's threads as one. */
  private static String group(String thread) {
    if (thread.startsWith(OtlpSink.THREAD) || thread.startsWith("HTTP-Dispatcher")) {
      return SINK;
    }
    String name = thread.substring(0, thread.lastIndexOf(' '));
    return name.replaceAll("[0-9]+", "").replaceAll("[- ]+$", "");
  }

  /** Every live thread's CPU time in ns, by name and id. */
  private static Map<String, Long> threadCpu() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, Long> cpu = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      ThreadInfo info = threads.getThreadInfo(id);
      long used = threads.getThreadCpuTime(id);
      if (info != null && used > 0) {
        cpu.put(info.getThreadName() + " " + id, used);
      }
    }
    return cpu;
  }

  private static double[] quartiles(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return new double[] {sorted[n / 4], sorted[n / 2], sorted[(3 * n) / 4]};
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("ExportCost: expected --name value, got " + args[i]);
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    return options;
  }
}
