package dev.bolo.bench;

import dev.bolo.server.engine.moonshine.MoonshineRecognizer;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How Bolo's Moonshine recogniser should use the cores: for ONNX Runtime's intra-op threads 1 and
 * 2, the time of one note recognised alone (warm, median of seven) and the throughput (seconds of
 * audio per second of wall time) with one and with two notes recognised at once. Each note is
 * decoded by FFmpeg and read through the VAD, as the gateway would.
 *
 * <p>Usage: {@code MoonshineBench NOTE [ROUNDS [SETTINGS]]}, SETTINGS as {@link MoonshineClips}
 * takes them after the threads (e.g. {@code /beam=1,noempty=0}: greedy); the models come from
 * {@code models/}.
 */
public final class MoonshineBench {

  private MoonshineBench() {}

  public static void main(String[] args) throws Exception {
    Path note = Path.of(args[0]);
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    // Settings as MoonshineClips takes them, e.g. "/beam=1,noempty=0" for greedy decoding.
    String settings = args.length > 2 ? args[2] : "";
    double seconds = new Clip("note", note, "").seconds();
    System.out.printf(
        Locale.ROOT,
        "note %s, %.1f s; %d cores; load average %.1f%n",
        note.getFileName(),
        seconds,
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.println(
        "| intra-op threads | one note alone, median s | RTF alone | CPU s per audio s, alone"
            + " | audio s per s, 1 note at once | audio s per s, 2 notes at once |");
    System.out.println("|---|---|---|---|---|---|");
    for (int threads : new int[] {1, 2}) {
      try (MoonshineClips clips = MoonshineClips.named("moonshine-java:" + threads + settings)) {
        for (int i = 0; i < 3; i++) {
          clips.timed(note);
        }
        List<Double> alone = new ArrayList<>();
        long cpuStarted = OfflineAccuracy.processCpuNanos();
        for (int i = 0; i < 7; i++) {
          long started = System.nanoTime();
          clips.timed(note);
          alone.add((System.nanoTime() - started) / 1e9);
        }
        double cpuPerAudioSecond =
            (OfflineAccuracy.processCpuNanos() - cpuStarted) / 1e9 / (7 * seconds);
        double median = alone.stream().sorted().toList().get(alone.size() / 2);
        double one = throughput(clips, note, 1, rounds, seconds);
        double two = throughput(clips, note, 2, rounds, seconds);
        System.out.printf(
            Locale.ROOT,
            "| %d | %.2f | %.3f | %.3f | %.1f | %.1f |%n",
            threads,
            median,
            median / seconds,
            cpuPerAudioSecond,
            one,
            two);
        System.out.println("  (alone, s: " + alone + ")");
      }
    }
    System.out.println("model " + MoonshineRecognizer.MODEL);
  }

  /** Seconds of audio recognised per second of wall time with {@code atOnce} notes in flight. */
  private static double throughput(
      MoonshineClips clips, Path note, int atOnce, int rounds, double seconds) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(atOnce);
    try {
      long started = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < rounds * 2; i++) {
        done.add(pool.submit(() -> clips.timed(note)));
      }
      for (Future<?> future : done) {
        future.get();
      }
      return rounds * 2 * seconds / ((System.nanoTime() - started) / 1e9);
    } finally {
      pool.shutdown();
    }
  }
}
