package dev.bolo.cli;

import dev.bolo.client.Attempt;
import dev.bolo.client.BoloClient;
import dev.bolo.client.CallOptions;
import dev.bolo.client.Failure;
import dev.bolo.client.Outcome;
import dev.bolo.client.ResendPolicy;
import dev.bolo.client.Transcript;
import dev.bolo.client.TranscriptionHandle;
import dev.bolo.client.TranscriptionListener;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bolo transcribe FILE...}: sends voice notes to a gateway with the client SDK, several at
 * once, and prints each transcript. Text goes to stdout; progress and "retrying in N s (reason)" to
 * stderr. Ctrl-C cancels every note cleanly: no attempt starts after it.
 *
 * <p>One instance runs once; picocli creates it per invocation.
 */
@Command(
    name = "transcribe",
    mixinStandardHelpOptions = true,
    description = "Transcribe voice notes with a Bolo gateway, resending when that can help.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every note was transcribed",
      "2:usage error (bad option, missing token, unreadable file)",
      "3:the gateway refused a note, or it changed before it was sent (a resend cannot help)",
      "4:gave up on a note after resending",
      "130:cancelled (Ctrl-C)"
    })
public final class TranscribeCommand implements java.util.concurrent.Callable<Integer> {

  /** Exit codes, documented in {@code --help}. */
  static final int OK = 0;

  static final int USAGE = 2;

  static final int REFUSED = 3;
  static final int GAVE_UP = 4;
  static final int CANCELLED = 130;

  /** Notes in flight at once: enough to overlap uploads, few enough to spare a home uplink. */
  static final int CONCURRENCY = 4;

  /** How long Ctrl-C waits for cancelled notes to report before the JVM exits. */
  private static final Duration CANCEL_GRACE = Duration.ofSeconds(5);

  @Parameters(paramLabel = "FILE", arity = "1..*", description = "Audio files to transcribe.")
  private List<Path> files = new ArrayList<>();

  @Option(
      names = "--server",
      paramLabel = "URL",
      defaultValue = "${env:BOLO_SERVER:-http://127.0.0.1:8080}",
      description =
          "The gateway's base URL, such as http://host:8080; a trailing /v1 (the OpenAI SDKs'"
              + " habit) is accepted. Default: $BOLO_SERVER, else ${DEFAULT-VALUE}")
  private String server = "http://127.0.0.1:8080";

  @Option(
      names = "--token",
      paramLabel = "T",
      defaultValue = "${env:BOLO_TOKEN}",
      description = "The device token (default: $BOLO_TOKEN).")
  private @Nullable String token;

  @Option(names = "--language", paramLabel = "L", description = "The language spoken, such as en.")
  private @Nullable String language;

  @Option(
      names = "--json",
      description =
          "Print one JSON object per note instead of text: the gateway's whole answer (text,"
              + " deduplicated, audio_sha256, duration_ms, request_id, engine) or the refusal.")
  private boolean json;

  @Option(
      names = "--progress",
      negatable = true,
      description =
          "Show each note's upload (and where it resumes after a lost link), the wait for its"
              + " transcript and every resend on stderr."
              + " Default: on when the terminal is interactive, off when output is piped.")
  private @Nullable Boolean progress;

  @Spec private @Nullable CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    CommandSpec spec = Objects.requireNonNull(this.spec, "picocli injects the spec");
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    HttpUrl baseUrl = HttpUrl.parse(withoutApiPrefix(server));
    if (baseUrl == null) {
      throw new ParameterException(spec.commandLine(), "--server is not an http(s) URL: " + server);
    }
    if (token == null || token.isBlank()) {
      throw new ParameterException(
          spec.commandLine(), "no device token: give --token or set BOLO_TOKEN");
    }
    TranscriptionOptions options;
    List<VoiceNote> notes = new ArrayList<>();
    try {
      options = TranscriptionOptions.defaults().withLanguage(language);
      for (Path file : files) {
        notes.add(readNote(file));
      }
    } catch (IllegalArgumentException | IOException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }

    // OkHttp's dispatcher runs every note's calls; it also bounds how many are in flight at once.
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequestsPerHost(CONCURRENCY);
    OkHttpClient http = new OkHttpClient.Builder().dispatcher(dispatcher).build();
    BoloClient client =
        BoloClient.builder().baseUrl(baseUrl).token(token).okHttpClient(http).build();
    List<TranscriptionHandle> handles = new ArrayList<>();
    CountDownLatch reported = new CountDownLatch(1);
    Thread onCtrlC =
        new Thread(
            () -> {
              synchronized (handles) {
                handles.forEach(TranscriptionHandle::cancel);
              }
              awaitQuietly(reported);
            },
            "bolo-transcribe-cancel");
    Runtime.getRuntime().addShutdownHook(onCtrlC);
    try {
      synchronized (handles) {
        for (int i = 0; i < notes.size(); i++) {
          CallOptions call =
              CallOptions.defaults()
                  .withListener(
                      new Progress(files.get(i), err, showProgress(), MAX_ATTEMPTS_SHOWN));
          handles.add(client.transcribeAsync(notes.get(i), options, call));
        }
      }
      int exitCode = OK;
      for (int i = 0; i < handles.size(); i++) {
        Outcome outcome = outcomeOf(handles.get(i));
        report(files.get(i), outcome, out, err);
        exitCode = worse(exitCode, exitCodeFor(outcome));
      }
      out.flush();
      err.flush();
      return exitCode;
    } finally {
      reported.countDown();
      removeHook(onCtrlC);
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  /** The attempts the SDK makes at most, for "attempt 2 of 4". */
  private static final int MAX_ATTEMPTS_SHOWN = ResendPolicy.standard().maxAttempts();

  /**
   * The gateway's base URL without the {@code /v1} an OpenAI SDK user habitually adds: the client
   * adds the API path itself.
   */
  static String withoutApiPrefix(String url) {
    String trimmed = url.strip();
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return trimmed.endsWith("/v1") ? trimmed.substring(0, trimmed.length() - 3) : trimmed;
  }

  private boolean showProgress() {
    return progress != null ? progress : isInteractive();
  }

  /**
   * Whether a person is watching: the JVM has a console, and on JDK 22 and later that console is a
   * terminal (from 22 on, {@code System.console()} is not null when output is piped).
   */
  private static boolean isInteractive() {
    java.io.Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException | ClassCastException e) {
      // JDK 21: a console exists only when stdin and stdout are a terminal.
      return true;
    }
  }

  private static VoiceNote readNote(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("not a readable file: " + file);
    }
    return VoiceNote.ofFile(file);
  }

  private static Outcome outcomeOf(TranscriptionHandle handle) throws InterruptedException {
    try {
      return handle.outcome().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("transcription crashed", e.getCause());
    }
  }

  private void report(Path file, Outcome outcome, PrintWriter out, PrintWriter err) {
    if (json) {
      out.println(JsonLine.of(file, outcome));
      return;
    }
    String label = files.size() > 1 ? file + ": " : "";
    switch (outcome) {
      case Outcome.Transcribed t -> out.println(label + t.transcript().text());
      case Outcome.Refused r ->
          err.println(
              file
                  + ": refused: HTTP "
                  + r.status()
                  + (r.code() == null ? "" : " " + r.code())
                  + ": "
                  + r.message());
      case Outcome.GaveUp g ->
          err.println(
              file
                  + ": gave up after "
                  + g.attempts()
                  + " attempt(s): "
                  + g.lastFailure().reason());
      case Outcome.Cancelled c -> err.println(file + ": cancelled");
      case Outcome.Unreadable u -> err.println(file + ": cannot be read: " + u.message());
      case Outcome.AudioChanged a -> err.println(file + ": not sent: " + a.message());
    }
  }

  static int exitCodeFor(Outcome outcome) {
    return switch (outcome) {
      case Outcome.Transcribed t -> OK;
      case Outcome.Refused r -> REFUSED;
      case Outcome.GaveUp g -> GAVE_UP;
      case Outcome.Cancelled c -> CANCELLED;
      // The file became unreadable after it was checked: the usage error an unreadable file is.
      case Outcome.Unreadable u -> USAGE;
      case Outcome.AudioChanged a -> REFUSED;
    };
  }

  /** The exit code that says more: cancelled, then gave up, then refused, then ok. */
  static int worse(int a, int b) {
    return rank(a) >= rank(b) ? a : b;
  }

  private static int rank(int exitCode) {
    return switch (exitCode) {
      case CANCELLED -> 4;
      case GAVE_UP -> 3;
      case REFUSED -> 2;
      case USAGE -> 1;
      default -> 0;
    };
  }

  private static void awaitQuietly(CountDownLatch reported) {
    try {
      if (!reported.await(CANCEL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        return; // The JVM exits anyway; the notes are cancelled, only their report is lost.
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // Ctrl-C arrived: the hook is running and must be left to finish.
    }
  }

  /**
   * Prints "FILE: retrying in N s (reason), attempt n of 4" on stderr always, and when {@code
   * verbose} the upload's bytes, each resume of a large note's upload after a lost link, and the
   * wait for the transcript too. Thread safe: events arrive on OkHttp's threads.
   */
  private static final class Progress implements TranscriptionListener {
    /** Upload progress is shown at each quarter, so a large note says a few lines, not hundreds. */
    private static final int STEPS = 4;

    private final Path file;
    private final PrintWriter err;
    private final boolean verbose;
    private final int maxAttempts;
    private final java.util.concurrent.atomic.AtomicInteger shownStep =
        new java.util.concurrent.atomic.AtomicInteger();

    Progress(Path file, PrintWriter err, boolean verbose, int maxAttempts) {
      this.file = file;
      this.err = err;
      this.verbose = verbose;
      this.maxAttempts = maxAttempts;
    }

    @Override
    public void attemptStarted(Attempt attempt) {
      shownStep.set(0);
    }

    @Override
    public void uploadProgress(Attempt attempt, long bytesSent, long bytesTotal) {
      if (!verbose || bytesTotal <= 0) {
        return;
      }
      int step = (int) Math.min(STEPS, bytesSent * STEPS / bytesTotal);
      if (step == 0 || shownStep.getAndAccumulate(step, Math::max) >= step) {
        return;
      }
      String line =
          file
              + ": attempt "
              + attempt.number()
              + " of "
              + maxAttempts
              + ": sent "
              + bytesSent
              + " of "
              + bytesTotal
              + " bytes"
              + (bytesSent >= bytesTotal ? "; waiting for the transcript" : "");
      print(line);
    }

    @Override
    public void uploadResumed(Attempt attempt, long offset, long bytesTotal) {
      if (!verbose) {
        return;
      }
      print(
          file
              + ": attempt "
              + attempt.number()
              + " of "
              + maxAttempts
              + ": link lost, resuming at byte "
              + offset
              + " of "
              + bytesTotal);
    }

    @Override
    public void resendScheduled(Attempt failed, Duration pause, Failure reason) {
      long seconds = Math.max(1, Math.round(pause.toMillis() / 1000.0));
      print(
          file
              + ": retrying in "
              + seconds
              + " s ("
              + reason.reason()
              + "), attempt "
              + (failed.number() + 1)
              + " of "
              + maxAttempts);
    }

    private void print(String line) {
      synchronized (err) {
        err.println(line);
        err.flush();
      }
    }
  }

  /** One note's outcome as a line of JSON. */
  static final class JsonLine {
    private JsonLine() {}

    static String of(Path file, Outcome outcome) {
      StringBuilder line = new StringBuilder("{\"file\":").append(quote(file.toString()));
      line.append(",\"attempts\":").append(outcome.attempts());
      switch (outcome) {
        case Outcome.Transcribed t -> {
          Transcript tr = t.transcript();
          line.append(",\"status\":\"transcribed\",\"text\":").append(quote(tr.text()));
          line.append(",\"deduplicated\":").append(tr.deduplicated());
          line.append(",\"audio_sha256\":").append(quote(tr.audioSha256()));
          line.append(",\"duration_ms\":")
              .append(tr.durationMs() == null ? "null" : tr.durationMs());
          line.append(",\"request_id\":").append(quote(tr.requestId()));
          line.append(",\"engine\":").append(quote(tr.engine()));
        }
        case Outcome.Refused r -> {
          line.append(",\"status\":\"refused\",\"http_status\":").append(r.status());
          line.append(",\"code\":").append(r.code() == null ? "null" : quote(r.code()));
          line.append(",\"error\":").append(quote(r.message()));
        }
        case Outcome.GaveUp g ->
            line.append(",\"status\":\"gave_up\",\"error\":")
                .append(quote(g.lastFailure().reason()));
        case Outcome.Cancelled c -> line.append(",\"status\":\"cancelled\"");
        case Outcome.Unreadable u ->
            line.append(",\"status\":\"unreadable\",\"error\":").append(quote(u.message()));
        case Outcome.AudioChanged a ->
            line.append(",\"status\":\"audio_changed\",\"error\":").append(quote(a.message()));
      }
      return line.append('}').toString();
    }

    static String quote(String value) {
      StringBuilder out = new StringBuilder("\"");
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        switch (c) {
          case '"' -> out.append("\\\"");
          case '\\' -> out.append("\\\\");
          case '\n' -> out.append("\\n");
          case '\r' -> out.append("\\r");
          case '\t' -> out.append("\\t");
          default -> {
            if (c < 0x20) {
              out.append(String.format("\\u%04x", (int) c));
            } else {
              out.append(c);
            }
          }
        }
      }
      return out.append('"').toString();
    }
  }
}
