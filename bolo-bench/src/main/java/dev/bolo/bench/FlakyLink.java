package dev.bolo.bench;

import dev.bolo.client.Attempt;
import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionListener;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;

/**
 * Voice notes over an uplink that keeps dropping, through the SDK to a real gateway: a {@link
 * FlakyLinkProxy} on loopback cuts every connection after a random 1–4 MB, and the SDK sends {@code
 * --notes} notes of {@code --note-mb} MB each, once with resumable uploads and lookups (the SDK's
 * defaults) and once with both turned off (every resend uploads the whole note). The gateway
 * ({@code ./bolo serve}, {@code BOLO_ENGINE=openai}) and the provider stand-in run in processes of
 * their own, as in {@link GatewayLoad}.
 *
 * <p>Reports per run: bytes sent per delivered transcript (what the proxy read from the SDK's
 * connections, and what the SDK handed to its sockets), provider calls, notes lost, attempts,
 * resumes, link cuts and wall time; writes {@code bolo-bench/results/flaky-link-*.md}.
 *
 * <p>Usage: {@code bolo-bench/run FlakyLink [--notes 50] [--note-mb 10] [--min-cut-mb 1]
 * [--max-cut-mb 4] [--concurrency 4] [--seed 1] [--heap 512m] [--runs resumable,whole]}.
 */
public final class FlakyLink {

  private static final String TOKEN = "flaky-link-token-0123456789";
  private static final long MB = 1024 * 1024;

  private FlakyLink() {}

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    try (HarnessRun harness = HarnessRun.start("bolo-flaky-link")) {
      Path root = harness.root();
      Path work = harness.work();
      int providerPort = BenchRun.freePort();
      harness.add(BenchRun.startStandIn(work, providerPort, 0));
      int gatewayPort = BenchRun.freePort();
      harness.add(startGateway(root, work, gatewayPort, providerPort, options));
      BenchRun.awaitReady(gatewayPort);

      StringBuilder report = new StringBuilder();
      header(report, root, options);
      System.out.print(report);
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      byte[] template = BenchNotes.wav((int) (options.noteMb() * MB));
      List<RunResult> results = new ArrayList<>();
      for (String run : options.runs()) {
        boolean resumable =
            switch (run) {
              case "resumable" -> true;
              case "whole" -> false;
              default -> throw new IllegalArgumentException("unknown run: " + run);
            };
        RunResult result = run(run, resumable, template, gatewayPort, providerPort, http, options);
        System.out.println(result);
        results.add(result);
      }
      table(report, results, template.length);
      System.out.print(report.substring(report.indexOf("| run |")));
      BenchRun.writeResults(root, "flaky-link", report);
      harness.finished();
    }
  }

  /** One run: every note through a fresh proxy and a fresh client, {@code concurrency} at once. */
  private static RunResult run(
      String label,
      boolean resumable,
      byte[] template,
      int gatewayPort,
      int providerPort,
      HttpClient http,
      Options options)
      throws Exception {
    long callsBefore = ProviderCalls.countOnceQuiet(http, providerPort);
    AtomicLong attempts = new AtomicLong();
    AtomicLong resumes = new AtomicLong();
    AtomicLong socketBytes = new AtomicLong();
    Map<String, Long> endings = new HashMap<>();
    try (FlakyLinkProxy proxy =
        new FlakyLinkProxy(
            gatewayPort,
            (long) (options.minCutMb() * MB),
            (long) (options.maxCutMb() * MB),
            options.seed())) {
      Dispatcher dispatcher = new Dispatcher();
      dispatcher.setMaxRequestsPerHost(options.concurrency() * 2);
      OkHttpClient okHttp =
          new OkHttpClient.Builder()
              .dispatcher(dispatcher)
              .socketFactory(new CountingSocketFactory(socketBytes))
              .build();
      BoloClient client =
          BoloClient.builder()
              .baseUrl("http://127.0.0.1:" + proxy.port())
              .token(TOKEN)
              .okHttpClient(okHttp)
              .resumableUploads(resumable)
              .lookupBeforeResend(resumable)
              .listener(
                  new TranscriptionListener() {
                    @Override
                    public void attemptStarted(Attempt attempt) {
                      attempts.incrementAndGet();
                    }

                    @Override
                    public void uploadResumed(Attempt attempt, long offset, long bytesTotal) {
                      resumes.incrementAndGet();
                    }
                  })
              .build();
      // A nonce per run, so that no run's note is replayed from another's work.
      String nonce = label.charAt(0) + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
      long start = System.nanoTime();
      try (ExecutorService senders = Executors.newFixedThreadPool(options.concurrency())) {
        List<Future<Outcome>> outcomes = new ArrayList<>();
        for (int i = 0; i < options.notes(); i++) {
          int index = i;
          outcomes.add(
              senders.submit(
                  () ->
                      client.transcribe(
                          note(template, nonce, index), TranscriptionOptions.defaults())));
        }
        for (Future<Outcome> outcome : outcomes) {
          String ending = outcome.get(30, TimeUnit.MINUTES).getClass().getSimpleName();
          endings.merge(ending, 1L, Long::sum);
        }
      }
      Duration wall = Duration.ofNanos(System.nanoTime() - start);
      okHttp.dispatcher().executorService().shutdown();
      okHttp.connectionPool().evictAll();
      long calls = ProviderCalls.countOnceQuiet(http, providerPort) - callsBefore;
      long delivered = endings.getOrDefault("Transcribed", 0L);
      return new RunResult(
          label,
          options.notes(),
          delivered,
          options.notes() - delivered,
          calls,
          proxy.bytesFromClients(),
          socketBytes.get(),
          attempts.get(),
          resumes.get(),
          proxy.cuts(),
          proxy.connections(),
          wall,
          endings);
    }
  }

  /** The template with this run's note number in its samples: every note is distinct. */
  private static VoiceNote note(byte[] template, String nonce, int index) {
    byte[] audio = template.clone();
    byte[] id =
        String.format(Locale.ROOT, "flaky-%s-%06d", nonce, index)
            .getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(id, 0, audio, 64, id.length);
    return VoiceNote.ofBytes(audio, "note-" + index + ".wav");
  }

  private static Process startGateway(
      Path root, Path work, int port, int providerPort, Options options) throws IOException {
    // One device token for every note in flight, and the broken uploads it leaves behind.
    return BenchRun.startGateway(
        root,
        work,
        port,
        providerPort,
        "phone=" + TOKEN,
        options.heap(),
        Map.of(
            "BOLO_MAX_BODIES_PER_DEVICE",
            Integer.toString(options.concurrency() * 4),
            "BOLO_MAX_OPEN_UPLOADS_PER_DEVICE",
            Integer.toString(options.concurrency() * 4)));
  }

  private static void header(StringBuilder out, Path root, Options options) throws Exception {
    out.append("# Voice notes over a dropping uplink\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "%s- gateway heap -Xmx%s, BOLO_ENGINE=openai at the provider stand-in%n"
                + "- %d distinct WAV notes of %s MiB through the SDK, %d at a time; a loopback proxy"
                + " with a 256 KiB receive window cuts each connection after a random %s–%s MiB"
                + " sent (seed %d); the standard"
                + " resend policy (4 attempts, pauses 2/5/10 s ±20 %%, 90 s window)%n"
                + "- bytes per transcript: what the proxy read from the SDK's connections (what"
                + " crossed the link), and what the SDK handed to its sockets (also what sat in"
                + " the kernel's send buffer when a link dropped), each over the transcripts"
                + " delivered and the note's size%n%n",
            BenchRun.machineLines(root),
            options.heap(),
            options.notes(),
            fmt(options.noteMb()),
            options.concurrency(),
            fmt(options.minCutMb()),
            fmt(options.maxCutMb()),
            options.seed()));
  }

  private static void table(StringBuilder out, List<RunResult> results, long noteBytes) {
    out.append(
        "| run | transcripts delivered | notes lost | link bytes per transcript | socket bytes"
            + " per transcript | provider calls | attempts | resumes | link cuts | wall time |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (RunResult r : results) {
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %d of %d | %d | %s | %s | %d | %d | %d | %d | %.0f s |%n",
              r.label().equals("resumable")
                  ? "resumable uploads + lookups (SDK default)"
                  : "whole uploads, no lookups",
              r.delivered(),
              r.notes(),
              r.lost(),
              perTranscript(r.proxyBytes(), r.delivered(), noteBytes),
              perTranscript(r.socketBytes(), r.delivered(), noteBytes),
              r.providerCalls(),
              r.attempts(),
              r.resumes(),
              r.cuts(),
              r.wall().toMillis() / 1000.0));
    }
    out.append(String.format(Locale.ROOT, "%nNote size: %d bytes. Endings:", noteBytes));
    for (RunResult r : results) {
      out.append(' ').append(r.label()).append(' ').append(r.endings());
    }
    out.append('\n');
  }

  private static String perTranscript(long bytes, long delivered, long noteBytes) {
    if (delivered == 0) {
      return String.format(Locale.ROOT, "none delivered (%.1f MiB sent)", bytes / (double) MB);
    }
    double per = (double) bytes / delivered;
    return String.format(Locale.ROOT, "%.2f MiB (%.3f×)", per / MB, per / noteBytes);
  }

  private static String fmt(double mb) {
    return mb == Math.rint(mb) ? Long.toString((long) mb) : Double.toString(mb);
  }

  /** What one run measured. */
  record RunResult(
      String label,
      int notes,
      long delivered,
      long lost,
      long providerCalls,
      long proxyBytes,
      long socketBytes,
      long attempts,
      long resumes,
      long cuts,
      long connections,
      Duration wall,
      Map<String, Long> endings) {}

  /** Command-line options. */
  record Options(
      int notes,
      double noteMb,
      double minCutMb,
      double maxCutMb,
      int concurrency,
      long seed,
      String heap,
      List<String> runs) {
    static Options parse(String[] args) {
      BenchArgs given = BenchArgs.parse(args);
      List<String> known =
          List.of(
              "--notes",
              "--note-mb",
              "--min-cut-mb",
              "--max-cut-mb",
              "--concurrency",
              "--seed",
              "--heap",
              "--runs");
      String unknown = given.unknownName(known);
      if (unknown != null) {
        throw new IllegalArgumentException("unknown option: " + unknown + "; known: " + known);
      }
      return new Options(
          given.integer("--notes", 50),
          given.decimal("--note-mb", 10),
          given.decimal("--min-cut-mb", 1),
          given.decimal("--max-cut-mb", 4),
          given.integer("--concurrency", 4),
          given.longInteger("--seed", 1),
          given.text("--heap", "512m"),
          given.list("--runs", "resumable,whole"));
    }
  }
}
