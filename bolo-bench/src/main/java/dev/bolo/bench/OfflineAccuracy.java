package dev.bolo.bench;

import dev.bolo.server.engine.offline.WordErrorRate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * The offline engine's word error rate on a set made by {@code bolo-bench/accuracy/make-set.sh}:
 * per voice, speed, noise and format, and overall. Two notes are recognised at a time, one per
 * core; {@link OfflineBench} measures speed.
 *
 * <p>Usage: {@code OfflineAccuracy [--set DIR] [--notes FILE] [CONFIG]}, CONFIG as for {@link
 * OfflineBench} ({@code engine} by default); DIR defaults to {@code bolo-bench/target/accuracy}.
 * {@code --notes FILE} also writes each note's errors, words and transcript there (tab-separated),
 * to see what was misheard.
 */
public final class OfflineAccuracy {

  private OfflineAccuracy() {}

  /** One note of the set and what became of it. */
  private record Row(
      String file, String voice, String speed, String noise, String format, String reference) {}

  private record Scored(Row row, int errors, int words, String text) {}

  public static void main(String[] args) throws Exception {
    Path set = Path.of("bolo-bench", "target", "accuracy");
    String config = "engine";
    Path notes = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--set")) {
        set = Path.of(args[++i]);
      } else if (args[i].equals("--notes")) {
        notes = Path.of(args[++i]);
      } else {
        config = args[i];
      }
    }
    List<Row> rows = manifest(set.resolve("manifest.tsv"));
    List<Scored> scored = new ArrayList<>();
    long started;
    long cpuStarted;
    try (ClipRecognizer recognizer = OfflineBench.transcriber(config);
        ExecutorService two = Executors.newFixedThreadPool(2)) {
      List<Future<Scored>> running = new ArrayList<>();
      started = System.nanoTime();
      cpuStarted = processCpuNanos();
      for (Row row : rows) {
        Path file = set.resolve(row.file());
        running.add(two.submit(() -> score(recognizer, row, file)));
      }
      for (Future<Scored> result : running) {
        scored.add(result.get());
      }
    }
    double wall = (System.nanoTime() - started) / 1e9;
    double cpu = (processCpuNanos() - cpuStarted) / 1e9;
    double audio = 0;
    for (Row row : rows) {
      // Every compressed note was made from the clean WAV of the same name.
      String file = row.file();
      String wav =
          file.endsWith(".wav") ? file : file.substring(0, file.lastIndexOf('.')) + "-clean.wav";
      audio += new Clip(wav, set.resolve(wav), row.reference()).seconds();
    }
    System.out.printf(
        Locale.ROOT,
        "%n%d notes (%.0f s of audio), configuration %s: %.0f s wall, %.0f s CPU,"
            + " %.2f CPU s per audio s%n",
        scored.size(),
        audio,
        config,
        wall,
        cpu,
        cpu / audio);
    table("voice", scored, s -> s.row().voice());
    table("speed", scored, s -> s.row().speed());
    table("noise", scored, s -> s.row().noise());
    table("format", scored, s -> s.row().format());
    table("overall", scored, s -> "all");
    if (notes != null) {
      List<String> lines = new ArrayList<>();
      lines.add("file\terrors\twords\treference\ttranscript");
      for (Scored s : scored) {
        lines.add(
            String.join(
                "\t",
                s.row().file(),
                Integer.toString(s.errors()),
                Integer.toString(s.words()),
                s.row().reference(),
                s.text()));
      }
      Files.write(notes, lines, StandardCharsets.UTF_8);
    }
  }

  private static Scored score(ClipRecognizer recognizer, Row row, Path file) throws IOException {
    String text = recognizer.transcribe(new Clip(row.file(), file, row.reference()));
    List<String> reference = WordErrorRate.words(row.reference());
    return new Scored(
        row, WordErrorRate.errors(reference, WordErrorRate.words(text)), reference.size(), text);
  }

  private static void table(String dimension, List<Scored> scored, Function<Scored, String> key) {
    Map<String, int[]> counts = new TreeMap<>();
    for (Scored s : scored) {
      int[] c = counts.computeIfAbsent(key.apply(s), k -> new int[3]);
      c[0] += s.errors();
      c[1] += s.words();
      c[2]++;
    }
    System.out.printf(Locale.ROOT, "%n| %s | notes | WER |%n|---|---|---|%n", dimension);
    counts.forEach(
        (name, c) ->
            System.out.printf(
                Locale.ROOT,
                "| %s | %d | %.1f %% (%d/%d) |%n",
                name,
                c[2],
                100.0 * c[0] / c[1],
                c[0],
                c[1]));
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static List<Row> manifest(Path tsv) throws IOException {
    List<Row> rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(tsv, StandardCharsets.UTF_8);
    for (String line : lines.subList(1, lines.size())) {
      String[] c = line.split("\t");
      rows.add(new Row(c[0], c[1], c[2], c[3], c[4], c[5]));
    }
    return rows;
  }
}
