package dev.bolo.cli;

import dev.bolo.client.BoloClient;
import dev.bolo.client.CallOptions;
import dev.bolo.client.JobOptions;
import dev.bolo.client.Outcome;
import dev.bolo.client.ResendPolicy;
import dev.bolo.client.Timing;
import dev.bolo.client.TranscriptionHandle;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
    description = "Transcribe voice notes with a Bolo gateway, resending when that can help.")
public final class TranscribeCommand implements java.util.concurrent.Callable<Integer> {

  /** Notes in flight at once: enough to overlap uploads, few enough to spare a home uplink. */
  static final int CONCURRENCY = 4;

  /** The attempts the SDK makes at most, for "attempt 2 of 4". */
  private static final int MAX_ATTEMPTS_SHOWN = ResendPolicy.standard().maxAttempts();

  @Parameters(paramLabel = "FILE", arity = "1..*", description = "Audio files to transcribe.")
  private List<Path> files = new ArrayList<>();

  @Mixin private GatewayOptions gateway = new GatewayOptions();

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
              + " transcript with the gateway's progress (transcribing: 120 of 600 s) and every"
              + " resend on stderr."
              + " Default: on when the terminal is interactive, off when output is piped.")
  private @Nullable Boolean progress;

  @Option(
      names = "--async",
      description =
          "Hand each note over as a job (POST /v1/jobs) and print its id as soon as the gateway"
              + " has stored it, instead of waiting for the text; see the jobs with bolo jobs.")
  private boolean async;

  @Option(
      names = "--webhook-url",
      paramLabel = "URL",
      description =
          "With --async: where the gateway posts each job's end, signed with the device's"
              + " webhook secret (https, or http to a host the operator allows).")
  private @Nullable String webhookUrl;

  @Spec private @Nullable CommandSpec spec;

  private final Map<String, String> env;
  private final Timing timing;

  /** Reads the process environment; resends after the policy's real pauses. */
  public TranscribeCommand() {
    this(System.getenv(), Timing.system());
  }

  /** Reads {@code env} instead of the process environment and waits with {@code timing}. */
  TranscribeCommand(Map<String, String> env, Timing timing) {
    this.env = Map.copyOf(env);
    this.timing = timing;
  }

  @Override
  public Integer call() throws InterruptedException {
    CommandSpec spec = Objects.requireNonNull(this.spec, "picocli injects the spec");
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    GatewayOptions.Connection connection = gateway.resolve(spec.commandLine(), env);
    // A webhook belongs to a job: without --async there is nothing to call back about.
    if (webhookUrl != null && !async) {
      throw new ParameterException(spec.commandLine(), "--webhook-url needs --async");
    }
    TranscriptionOptions options;
    JobOptions job;
    try {
      options = TranscriptionOptions.defaults().withLanguage(language);
      job = JobOptions.none().withWebhookUrl(webhookUrl);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    // A file that cannot be sent is that note's outcome, not the run's: the others still go.
    List<@Nullable VoiceNote> notes = new ArrayList<>();
    Map<Integer, Outcome> unsent = new HashMap<>();
    for (Path file : files) {
      try {
        notes.add(readNote(file));
      } catch (UnsendableFileException e) {
        unsent.put(notes.size(), new Outcome.Unreadable(e.getMessage(), 0));
        notes.add(null);
      }
    }

    // OkHttp's dispatcher runs every note's calls; it also bounds how many are in flight at once.
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequestsPerHost(CONCURRENCY);
    OkHttpClient http = new OkHttpClient.Builder().dispatcher(dispatcher).build();
    BoloClient client = connection.client(http, timing);
    NoGatewayHint hint = new NoGatewayHint(connection.address(), err, MAX_ATTEMPTS_SHOWN);
    boolean verbose = progress != null ? progress : Terminal.isInteractive();
    if (async) {
      try {
        return new JobSubmissions(client, out, err, json, files.size() > 1)
            .submit(files, notes, unsent, options, job)
            .code();
      } finally {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
      }
    }
    OutcomeReport report = new OutcomeReport(out, err, json, files.size() > 1);
    try (CancelOnExit onExit = CancelOnExit.install()) {
      Map<Integer, TranscriptionHandle> handles = new HashMap<>();
      for (int i = 0; i < notes.size(); i++) {
        VoiceNote note = notes.get(i);
        if (note == null) {
          continue;
        }
        CallOptions call =
            CallOptions.defaults()
                .withListener(
                    new ProgressPrinter(files.get(i), err, verbose, MAX_ATTEMPTS_SHOWN, hint));
        TranscriptionHandle handle = client.transcribeAsync(note, options, call);
        onExit.add(handle);
        handles.put(i, handle);
      }
      ExitCode exitCode = ExitCode.OK;
      for (int i = 0; i < files.size(); i++) {
        TranscriptionHandle handle = handles.get(i);
        Outcome outcome =
            handle != null ? outcomeOf(handle) : Objects.requireNonNull(unsent.get(i), "unsent");
        report.report(files.get(i), outcome);
        exitCode = ExitCode.worse(exitCode, ExitCode.of(outcome));
      }
      report.flush();
      return exitCode.code();
    } finally {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  /**
   * The note in {@code file}, read once for its hash and length.
   *
   * @throws UnsendableFileException saying why it cannot be sent, in words that follow the file's
   *     name
   */
  private static VoiceNote readNote(Path file) throws UnsendableFileException {
    if (Files.isDirectory(file)) {
      throw new UnsendableFileException("a folder, not an audio file");
    }
    if (!Files.exists(file)) {
      throw new UnsendableFileException("no such file");
    }
    if (!Files.isReadable(file)) {
      throw new UnsendableFileException("not readable by this user");
    }
    try {
      // The gateway would answer 400 empty_audio; said here, before an upload is spent on it.
      if (Files.size(file) == 0) {
        throw new UnsendableFileException("the file is empty: there is no audio to send");
      }
      return VoiceNote.ofFile(file);
    } catch (IOException | IllegalArgumentException e) {
      throw new UnsendableFileException("cannot be read: " + e.getMessage());
    }
  }

  /** Why a file given on the command line cannot be sent as a note. */
  private static final class UnsendableFileException extends Exception {
    private static final long serialVersionUID = 1L;

    UnsendableFileException(String reason) {
      super(reason);
    }

    @Override
    public String getMessage() {
      return Objects.requireNonNull(super.getMessage(), "a reason is always given");
    }
  }

  private static Outcome outcomeOf(TranscriptionHandle handle) throws InterruptedException {
    try {
      return handle.outcome().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("transcription crashed", e.getCause());
    }
  }
}
