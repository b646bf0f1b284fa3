package dev.bolo.cli;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Job;
import dev.bolo.client.JobError;
import dev.bolo.client.JobList;
import dev.bolo.client.JobOutcome;
import dev.bolo.client.Timing;
import dev.bolo.server.engine.ClientText;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
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
 * {@code bolo jobs [ID]}: the device's jobs as a table, newest first, or one job: where it stands,
 * how far it got, its text or why it failed. Text to stdout; a refusal (no such job) to stderr.
 *
 * <p>One instance runs once; picocli creates it per invocation.
 */
@Command(
    name = "jobs",
    mixinStandardHelpOptions = true,
    description =
        "Show the device's jobs (bolo transcribe --async), newest first, or one job with its"
            + " text.")
public final class JobsCommand implements Callable<Integer> {

  /** The longest transcript line of the table: the table is for finding a job, not reading it. */
  private static final int SNIPPET_CHARS = 40;

  private static final DateTimeFormatter WHEN =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

  @Parameters(
      paramLabel = "ID",
      arity = "0..1",
      description = "A job's id, as bolo transcribe --async printed it.")
  private @Nullable String id;

  @Option(
      names = "--status",
      paramLabel = "S",
      description = "Only jobs of this status: queued, running, succeeded, failed or cancelled.")
  private @Nullable String status;

  @Option(
      names = "--after",
      paramLabel = "ID",
      description = "Only jobs older than this one: the next page, as the last line says.")
  private @Nullable String after;

  @Mixin private GatewayOptions gateway = new GatewayOptions();

  @Spec private @Nullable CommandSpec spec;

  private final Map<String, String> env;
  private final Timing timing;
  private final ZoneId zone;

  /** Reads the process environment; shows times in the system's zone. */
  public JobsCommand() {
    this(System.getenv(), Timing.system(), ZoneId.systemDefault());
  }

  /** Reads {@code env}, waits with {@code timing} and shows times in {@code zone}. */
  JobsCommand(Map<String, String> env, Timing timing, ZoneId zone) {
    this.env = Map.copyOf(env);
    this.timing = timing;
    this.zone = zone;
  }

  @Override
  public Integer call() {
    CommandSpec spec = Objects.requireNonNull(this.spec, "picocli injects the spec");
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    GatewayOptions.Connection connection = gateway.resolve(spec.commandLine(), env);
    Job.Status only = status == null ? null : statusOf(spec, status);
    OkHttpClient http = new OkHttpClient();
    BoloClient client = connection.client(http, timing);
    try {
      ExitCode exitCode;
      if (id != null) {
        JobOutcome<Job> outcome = client.job(id);
        if (outcome instanceof JobOutcome.Answered<Job> answered) {
          printJob(out, answered.answer());
        } else {
          err.println("bolo jobs " + id + ": " + failureOf(outcome));
        }
        exitCode = ExitCode.of(outcome);
      } else {
        JobOutcome<JobList> outcome = client.jobs(only, after);
        if (outcome instanceof JobOutcome.Answered<JobList> answered) {
          printTable(out, answered.answer(), only);
        } else {
          err.println("bolo jobs: " + failureOf(outcome));
        }
        exitCode = ExitCode.of(outcome);
      }
      out.flush();
      err.flush();
      return exitCode.code();
    } finally {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  private static Job.Status statusOf(CommandSpec spec, String name) {
    for (Job.Status candidate : Job.Status.values()) {
      if (candidate.wireName().equalsIgnoreCase(name.strip())) {
        return candidate;
      }
    }
    throw new ParameterException(
        spec.commandLine(),
        "--status is one of queued, running, succeeded, failed, cancelled: " + name);
  }

  private void printTable(PrintWriter out, JobList page, Job.@Nullable Status only) {
    if (page.jobs().isEmpty()) {
      out.println("no jobs" + (only == null ? "" : " " + only.wireName()));
      return;
    }
    String format = "%-28s %-9s %-19s %9s  %s%n";
    out.printf(Locale.ROOT, format, "ID", "STATUS", "CREATED", "SECONDS", "FILE / TEXT");
    for (Job job : page.jobs()) {
      out.printf(
          Locale.ROOT,
          format,
          job.id(),
          job.status().wireName(),
          WHEN.format(job.createdAt().atZone(zone)),
          progressOf(job),
          summaryOf(job));
    }
    String next = page.nextAfter();
    if (next != null) {
      out.println("older jobs: bolo jobs --after " + next);
    }
  }

  private void printJob(PrintWriter out, Job job) {
    String format = "%-10s %s%n";
    out.printf(Locale.ROOT, format, "id:", job.id());
    out.printf(Locale.ROOT, format, "status:", job.status().wireName());
    out.printf(Locale.ROOT, format, "created:", WHEN.format(job.createdAt().atZone(zone)));
    Instant finished = job.finishedAt();
    if (finished != null) {
      out.printf(
          Locale.ROOT,
          format,
          "finished:",
          WHEN.format(finished.atZone(zone))
              + " ("
              + seconds(Duration.between(job.createdAt(), finished).toMillis() / 1000.0)
              + " s after)");
    }
    out.printf(Locale.ROOT, format, "progress:", progressOf(job) + " s");
    out.printf(Locale.ROOT, format, "audio:", job.audioSha256());
    job.metadata()
        .forEach(
            (name, value) ->
                out.printf(Locale.ROOT, format, name + ":", ClientText.shown(value, 500)));
    if (job.webhookUrl() != null) {
      out.printf(Locale.ROOT, format, "webhook:", job.webhookUrl());
    }
    JobError error = job.error();
    if (error != null) {
      out.printf(
          Locale.ROOT,
          format,
          "error:",
          error.code() + ": " + ClientText.shown(error.message(), 300));
    }
    if (job.result() != null) {
      out.printf(Locale.ROOT, format, "text:", job.result().text());
    }
  }

  /** "3.0 of 10.0", or "10.0" once it succeeded: how far the note's work got, in its seconds. */
  private static String progressOf(Job job) {
    if (job.status() == Job.Status.SUCCEEDED || job.secondsTotal() == 0) {
      return seconds(job.secondsTotal());
    }
    return seconds(job.secondsDone()) + " of " + seconds(job.secondsTotal());
  }

  /** The file the job was made of, and the start of its text. */
  private static String summaryOf(Job job) {
    String file = job.metadata().get(JobSubmissions.FILE_LABEL);
    String text = job.result() == null ? null : job.result().text();
    if (job.error() != null) {
      text = job.error().code();
    }
    String snippet =
        text == null
            ? ""
            : ClientText.shown(
                text.length() > SNIPPET_CHARS ? text.substring(0, SNIPPET_CHARS) + "…" : text,
                SNIPPET_CHARS + 1);
    if (file == null) {
      return snippet;
    }
    return ClientText.shown(file, 60) + (snippet.isEmpty() ? "" : ": " + snippet);
  }

  private static String seconds(double seconds) {
    return String.format(Locale.ROOT, "%.1f", seconds);
  }

  private static String failureOf(JobOutcome<?> outcome) {
    return switch (outcome) {
      case JobOutcome.Answered<?> a -> "answered";
      case JobOutcome.Refused<?> r -> "refused: " + FailureText.of(r.error());
      case JobOutcome.GaveUp<?> g ->
          "gave up after " + g.attempts() + " attempt(s): " + FailureText.of(g.lastFailure());
      case JobOutcome.Cancelled<?> c -> "cancelled";
      case JobOutcome.Unreadable<?> u -> u.message();
    };
  }
}
