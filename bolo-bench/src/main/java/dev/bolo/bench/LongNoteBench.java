package dev.bolo.bench;

import dev.bolo.server.engine.offline.WordErrorRate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One long note through the offline engine as the gateway runs it (every core on the note's
 * utterances): wall time, real-time factor, word error rate against its reference, and the heap's
 * high-water mark after each collection. Columns: note, length, wall time, process CPU time,
 * real-time factor, word error rate, the live heap's high-water mark (a full collection every 30
 * s), the peak heap after any collection, the peak resident set. Run it with the launcher's heap
 * ({@code BENCH_JAVA_OPTS=-Xmx512m}) to see whether an hour fits. Make the note with {@code
 * bolo-bench/accuracy/make-long-note.sh}.
 *
 * <p>Usage: {@code LongNoteBench NOTE REFERENCE.txt [CONFIG]}, CONFIG as for {@link OfflineBench}.
 */
public final class LongNoteBench {

  private LongNoteBench() {}

  public static void main(String[] args) throws Exception {
    Path note = Path.of(args[0]);
    String reference = Files.readString(Path.of(args[1]), StandardCharsets.UTF_8);
    String config = args.length > 2 ? args[2] : "engine";
    double seconds = Double.parseDouble(args.length > 3 ? args[3] : "0");
    AtomicLong peakHeap = OfflineBench.watchHeapAfterGc();
    AtomicLong peakLive = OfflineBench.sampleLiveHeap(java.time.Duration.ofSeconds(30));
    // The note's whole deadline, as the gateway's cap gives the offline engine: two minutes and the
    // note's length, and here three times that so that a slow run is measured, not cut off.
    java.time.Duration timeout = java.time.Duration.ofSeconds(3 * (120 + (long) seconds));
    try (ClipRecognizer engine =
        config.equals("engine")
            ? OfflineBench.engine(config, timeout)
            : OfflineBench.transcriber(config)) {
      long started = System.nanoTime();
      long cpuStarted = OfflineAccuracy.processCpuNanos();
      String text = engine.transcribe(new Clip(note.getFileName().toString(), note, reference));
      double wall = (System.nanoTime() - started) / 1e9;
      double cpu = (OfflineAccuracy.processCpuNanos() - cpuStarted) / 1e9;
      List<String> words = WordErrorRate.words(reference);
      int errors = WordErrorRate.errors(words, WordErrorRate.words(text));
      System.out.printf(
          Locale.ROOT,
          "| %s | %.0f s | %.0f s | %.0f s | %s | %.1f %% (%d/%d) | %d MB | %d MB | %d MB |%n",
          note.getFileName(),
          seconds,
          wall,
          cpu,
          seconds > 0 ? String.format(Locale.ROOT, "%.2f", wall / seconds) : "?",
          100.0 * errors / words.size(),
          errors,
          words.size(),
          peakLive.get() >> 20,
          peakHeap.get() >> 20,
          OfflineBench.maxResidentKb() >> 10);
    }
  }
}
