package dev.bolo.cli;

import ch.qos.logback.classic.Level;
import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionHandle;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.offline.WordErrorRate;
import dev.bolo.server.ledger.Tokens;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bolo demo}: starts the gateway on the embedded defaults, transcribes the bundled sample
 * notes through the client SDK, uploads one of them four times at once to show one transcription
 * serving all four, prints a summary and stops. No key and no network.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Shows the main job on the embedded defaults, offline, and stops.",
      "It transcribes the bundled notes and shows four simultaneous uploads of one note served by"
          + " one transcription."
    })
final class DemoCommand implements Callable<Integer> {

  private static final String DEVICE = "demo";
  private static final int COPIES = 4;

  /** The offline model loads in seconds; a slow, busy machine gets a generous bound. */
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  @Spec @Nullable CommandSpec spec;

  @Option(
      names = "--samples",
      paramLabel = "DIR",
      description =
          "Directory of WAV notes, each with a NAME.txt reference (default: samples/notes).")
  @Nullable Path samples;

  private final Map<String, String> environment;

  DemoCommand() {
    this(System.getenv());
  }

  DemoCommand(Map<String, String> environment) {
    this.environment = Map.copyOf(environment);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out =
        spec == null ? new PrintWriter(System.out, true) : spec.commandLine().getOut();
    PrintWriter err =
        spec == null ? new PrintWriter(System.err, true) : spec.commandLine().getErr();
    List<Path> notes = sampleNotes(samplesDir());
    if (notes.isEmpty()) {
      err.println("bolo demo: no WAV notes in " + samplesDir());
      return ExitCode.FAILED.code();
    }
    // A ledger of the demo's own, thrown away after: the demo never adds to the operator's
    // devices and usage, and a device of theirs named "demo" (revoked, say) cannot stop it.
    Path ledger = Files.createTempDirectory("bolo-demo-");
    try {
      return run(out, err, notes, ledger);
    } finally {
      AotTraining.deleteTree(ledger);
    }
  }

  private int run(PrintWriter out, PrintWriter err, List<Path> notes, Path ledger)
      throws Exception {
    String token = Tokens.newToken();
    Map<String, String> env = new HashMap<>(environment);
    env.put("BOLO_PORT", "0");
    env.put("BOLO_HOST", "127.0.0.1");
    env.keySet().removeIf(name -> name.startsWith("BOLO_DATABASE_URL"));
    env.put("BOLO_DATA_DIR", ledger.toString());
    env.put("BOLO_DEVICE_TOKENS", DEVICE + "=" + token);
    ServerConfig config;
    try {
      config = ServerConfig.fromMap(env);
    } catch (IllegalArgumentException e) {
      // A malformed variable: one line and exit 2, as bolo serve answers it.
      err.println("bolo demo: " + e.getMessage());
      return ExitCode.USAGE.code();
    }

    quietLogs();
    out.printf(
        "Bolo demo: engine %s, store %s, a ledger of its own (yours is left alone)%n",
        String.join(", ", config.routing().engines().stream().map(e -> e.name()).toList()),
        config.store().kind().name().toLowerCase(java.util.Locale.ROOT));
    try (App app = App.create(config).start()) {
      String base = "http://127.0.0.1:" + app.port();
      out.println("Gateway listening on " + base + "; waiting until it is ready…");
      awaitReady(base);
      BoloClient bolo = BoloClient.builder().baseUrl(base).token(token).build();
      TranscriptionOptions options = TranscriptionOptions.defaults().withLanguage("en");

      // The last note is kept for the storm, so that its one transcription happens there.
      Path storm = notes.get(notes.size() - 1);
      out.println();
      out.println("1. The bundled notes, each transcribed once:");
      int words = 0;
      int errors = 0;
      for (Path note : notes.subList(0, notes.size() - 1)) {
        long started = System.nanoTime();
        Outcome outcome = bolo.transcribe(VoiceNote.ofFile(note), options);
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (!(outcome instanceof Outcome.Transcribed transcribed)) {
          err.println("bolo demo: " + note.getFileName() + " failed: " + outcome);
          return ExitCode.FAILED.code();
        }
        String text = transcribed.transcript().text();
        String reference = reference(note);
        List<String> referenceWords = WordErrorRate.words(reference);
        words += referenceWords.size();
        errors += WordErrorRate.errors(referenceWords, WordErrorRate.words(text));
        out.printf(
            "   %-14s %5.1f s of audio in %5.1f s  \"%s\"%n",
            note.getFileName(),
            transcribed.transcript().durationMs() == null
                ? 0
                : transcribed.transcript().durationMs() / 1000.0,
            millis / 1000.0,
            text);
      }
      out.printf(
          "   word error rate against the reference texts: %.1f %% (%d of %d words)%n",
          words == 0 ? 0 : 100.0 * errors / words, errors, words);

      out.println();
      out.printf(
          "2. %s uploaded %d times at once (a phone resending on a flaky link):%n",
          storm.getFileName(), COPIES);
      // A fresh recording of the same audio, as an app bug would upload it: new keys, same bytes.
      byte[] audio = Files.readAllBytes(storm);
      double callsBefore = upstreamCalls(app.metrics());
      List<TranscriptionHandle> handles = new ArrayList<>();
      for (int i = 0; i < COPIES; i++) {
        handles.add(
            bolo.transcribeAsync(
                VoiceNote.ofBytes(audio, storm.getFileName().toString()), options));
      }
      int replayed = 0;
      for (int i = 0; i < handles.size(); i++) {
        Outcome outcome = handles.get(i).outcome().join();
        if (!(outcome instanceof Outcome.Transcribed transcribed)) {
          err.println("bolo demo: copy " + (i + 1) + " failed: " + outcome);
          return ExitCode.FAILED.code();
        }
        boolean deduplicated = transcribed.transcript().deduplicated();
        replayed += deduplicated ? 1 : 0;
        out.printf(
            "   copy %d: %-9s \"%s\"%n",
            i + 1, deduplicated ? "replayed" : "engine", transcribed.transcript().text());
      }
      double calls = upstreamCalls(app.metrics()) - callsBefore;
      out.println();
      out.printf(
          "Summary: %d notes transcribed; %d simultaneous uploads of one note cost %.0f engine"
              + " call(s), and %d of them were answered from that call.%n",
          notes.size(), COPIES, calls, replayed);
      out.println(
          "The demo kept its own ledger and threw it away; ./bolo devices add NAME, ./bolo serve and ./bolo usage are the real thing.");
    }
    return 0;
  }

  /** The demo prints its own story; the server's per-request log lines would drown it. */
  static void quietLogs() {
    quietServerLogs();
  }

  /** Only warnings from the server's own (logback) loggers; returns the level before, if any. */
  static @Nullable Level quietServerLogs() {
    if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      Level before = root.getLevel();
      root.setLevel(Level.WARN);
      return before;
    }
    return null;
  }

  /** Puts back the level {@link #quietServerLogs()} returned. */
  static void restoreServerLogs(@Nullable Level level) {
    if (level != null
        && LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)
            instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(level);
    }
  }

  private Path samplesDir() {
    if (samples != null) {
      return samples;
    }
    String home = System.getProperty("bolo.home", ".");
    return Path.of(home, "samples", "notes");
  }

  private static List<Path> sampleNotes(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".wav"))
          .sorted()
          .toList();
    }
  }

  private static String reference(Path note) throws IOException {
    String name = note.getFileName().toString();
    Path text = note.resolveSibling(name.substring(0, name.length() - 4) + ".txt");
    return Files.exists(text) ? Files.readString(text).strip() : "";
  }

  private static double upstreamCalls(MeterRegistry metrics) {
    return metrics.find("bolo_upstream_calls_total").counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private static void awaitReady(String base) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest ready = HttpRequest.newBuilder(URI.create(base + "/readyz")).build();
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      HttpResponse<String> response = http.send(ready, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 200) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the gateway did not become ready: " + response.body());
      }
      Thread.sleep(250);
    }
  }
}
