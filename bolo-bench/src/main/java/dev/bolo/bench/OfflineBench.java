package dev.bolo.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.bolo.server.engine.offline.OfflineConfig;
import dev.bolo.server.engine.offline.WordErrorRate;
import dev.bolo.testkit.LibriVox;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Speed, memory and accuracy of the offline engine (Moonshine tiny with Silero VAD) against Sphinx4
 * as documented (default configuration, a {@code StreamSpeechRecognizer} started per clip, the
 * engine the gateway had before), on Bolo's sample notes and on the LibriVox clips of Debian's
 * pocketsphinx-testdata.
 *
 * <p>Each configuration runs in its own JVM so that heap and resident-set figures are its own.
 * Usage: {@code OfflineBench [--notes DIR] [--librivox DIR] [--jvm-arg ARG]... [CONFIG...]}, where
 * each {@code --jvm-arg} goes to every measured JVM (e.g. {@code -Xmx512m}) and CONFIG is {@code
 * sphinx4-defaults}, {@code pocketsphinx} (Debian's, as a process), {@code moonshine} (npm's, as a
 * process), {@code moonshine-java[:THREADS]} (Bolo's Moonshine recogniser in process, see {@link
 * MoonshineClips}) or {@code engine} (the gateway's offline engine through its contract); {@code
 * sphinx4-defaults} and {@code engine} by default.
 */
public final class OfflineBench {

  private static final List<String> DEFAULT_CONFIGS = List.of("sphinx4-defaults", "engine");

  private OfflineBench() {}

  public static void main(String[] args) throws Exception {
    Path notes = Path.of("samples", "notes");
    Path librivox = LibriVox.DIRECTORY;
    String child = null;
    List<String> configs = new ArrayList<>();
    List<String> jvmArgs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--notes" -> notes = Path.of(args[++i]);
        case "--librivox" -> librivox = Path.of(args[++i]);
        case "--child" -> child = args[++i];
        case "--jvm-arg" -> jvmArgs.add(args[++i]);
        default -> configs.add(args[i]);
      }
    }
    if (child != null) {
      measure(child, notes, librivox);
      return;
    }
    if (!Files.isDirectory(librivox)) {
      throw new IllegalStateException(
          librivox + " missing: apt-get install pocketsphinx-testdata, or pass --librivox DIR");
    }
    List<String> results = new ArrayList<>();
    for (String config : configs.isEmpty() ? DEFAULT_CONFIGS : configs) {
      results.add(fork(config, notes, librivox, jvmArgs));
    }
    System.out.println();
    System.out.println(
        "| configuration | load s | RTF notes (median) | WER notes | RTF LibriVox (median) |"
            + " WER LibriVox | live heap after load MB | peak heap after GC MB | max RSS MB |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (String result : results) {
      System.out.println("| " + result.replace("\t", " | ") + " |");
    }
  }

  /** Runs one configuration in a fresh JVM and returns its tab-separated summary line. */
  private static String fork(String config, Path notes, Path librivox, List<String> jvmArgs)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            OfflineBench.class.getName(),
            "--child",
            config,
            "--notes",
            notes.toString(),
            "--librivox",
            librivox.toString()));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String summary = null;
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.startsWith("RESULT\t")) {
          summary = line.substring("RESULT\t".length());
        } else {
          System.out.println(line);
        }
      }
    }
    int status = process.waitFor();
    if (status != 0 || summary == null) {
      throw new IllegalStateException(config + " failed with exit status " + status);
    }
    return summary;
  }

  private static void measure(String config, Path notesDir, Path librivoxDir) throws Exception {
    AtomicLong peakHeap = watchHeapAfterGc();
    List<Clip> notes = Clip.sampleNotes(notesDir);
    List<Clip> librivox = Clip.librivox(librivoxDir);
    long started = System.nanoTime();
    try (ClipRecognizer transcriber = transcriber(config)) {
      double loadSeconds = (System.nanoTime() - started) / 1e9;
      System.gc();
      long liveHeap = usedHeap();
      // One clip untimed, so that the timed ones do not pay for the JIT's first compilations.
      transcriber.transcribe(notes.getFirst());
      Corpus notesResult = run(config, "notes", transcriber, notes);
      Corpus librivoxResult = run(config, "librivox", transcriber, librivox);
      System.out.println(
          "RESULT\t"
              + String.join(
                  "\t",
                  config,
                  format("%.1f", loadSeconds),
                  format("%.2f", notesResult.medianRtf()),
                  notesResult.wer(),
                  format("%.2f", librivoxResult.medianRtf()),
                  librivoxResult.wer(),
                  Long.toString(liveHeap >> 20),
                  Long.toString(peakHeap.get() >> 20),
                  Long.toString(maxResidentKb() >> 10)));
    }
  }

  static ClipRecognizer transcriber(String config) throws Exception {
    return engine(config, java.time.Duration.ofMinutes(10));
  }

  /** The recogniser a configuration names, giving each clip {@code timeout}. */
  static ClipRecognizer engine(String config, java.time.Duration timeout) throws Exception {
    return switch (config) {
      case "sphinx4-defaults" -> ClipRecognizer.sphinx4Defaults();
      case "pocketsphinx" -> new PocketSphinxProcess();
      case "moonshine" -> new MoonshineProcess(2);
      case "engine" -> ClipRecognizer.engine(OfflineConfig.defaults(), timeout);
      default -> {
        if (config.startsWith("moonshine-java")) {
          yield MoonshineClips.named(config);
        }
        throw new IllegalArgumentException("unknown configuration: " + config);
      }
    };
  }

  private record Corpus(double medianRtf, int errors, int words) {
    String wer() {
      return format("%.1f %% (%d/%d)", 100.0 * errors / words, errors, words);
    }
  }

  private static Corpus run(
      String config, String corpus, ClipRecognizer transcriber, List<Clip> clips) {
    List<Double> rtfs = new ArrayList<>();
    int errors = 0;
    int words = 0;
    for (Clip clip : clips) {
      long started = System.nanoTime();
      String text = transcriber.transcribe(clip);
      double seconds = (System.nanoTime() - started) / 1e9;
      double rtf = seconds / clip.seconds();
      List<String> reference = WordErrorRate.words(clip.reference());
      int clipErrors = WordErrorRate.errors(reference, WordErrorRate.words(text));
      errors += clipErrors;
      words += reference.size();
      rtfs.add(rtf);
      System.out.println(
          format(
              "%s %s %s: %.2f s audio, RTF %.2f, %d/%d errors: %s",
              config,
              corpus,
              clip.name(),
              clip.seconds(),
              rtf,
              clipErrors,
              reference.size(),
              text));
    }
    return new Corpus(median(rtfs), errors, words);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  /** Tracks the largest heap occupancy right after any collection: the working set. */
  static AtomicLong watchHeapAfterGc() {
    Set<String> heapPools =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP)
            .map(MemoryPoolMXBean::getName)
            .collect(Collectors.toSet());
    AtomicLong peak = new AtomicLong();
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) collector)
          .addNotificationListener(
              (notification, handback) -> {
                if (!notification
                    .getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  return;
                }
                GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long used =
                    info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                        .filter(entry -> heapPools.contains(entry.getKey()))
                        .mapToLong(entry -> entry.getValue().getUsed())
                        .sum();
                peak.accumulateAndGet(used, Math::max);
              },
              null,
              null);
    }
    return peak;
  }

  /**
   * The live heap's high-water mark: every {@code every}, a full collection and then the heap in
   * use, which is what survives. G1's occupancy after its young collections also counts garbage the
   * old generation has not given back yet, so it climbs to the limit whatever is live.
   */
  static AtomicLong sampleLiveHeap(java.time.Duration every) {
    AtomicLong peak = new AtomicLong();
    Thread sampler =
        Thread.ofPlatform()
            .daemon()
            .name("live-heap-sampler")
            .start(
                () -> {
                  while (true) {
                    try {
                      Thread.sleep(every);
                    } catch (InterruptedException e) {
                      return;
                    }
                    System.gc();
                    peak.accumulateAndGet(usedHeap(), Math::max);
                  }
                });
    return peak;
  }

  private static long usedHeap() {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return heap.getUsed();
  }

  /** VmHWM from /proc/self/status: the process's peak resident set, in kB; 0 elsewhere. */
  static long maxResidentKb() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.exists(status)) {
      return 0;
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }
}
