package dev.bolo.cli;

import dev.bolo.client.BoloClient;
import dev.bolo.client.CallOptions;
import dev.bolo.client.Job;
import dev.bolo.client.JobOptions;
import dev.bolo.client.JobOutcome;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code bolo transcribe --async}: hands each note over as a job and prints its id, one line per
 * file (labelled with the file when there are several, as transcripts are), or with {@code --json}
 * one JSON object per file. Each job carries its file's name as the label {@code file}, so {@code
 * bolo jobs} can say which note a job is. Not thread-safe: one per command run.
 */
final class JobSubmissions {

  /** The metadata label that names the note's file. */
  static final String FILE_LABEL = "file";

  private final BoloClient client;
  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean json;
  private final boolean labelled;

  JobSubmissions(
      BoloClient client, PrintWriter out, PrintWriter err, boolean json, boolean labelled) {
    this.client = client;
    this.out = out;
    this.err = err;
    this.json = json;
    this.labelled = labelled;
  }

  /**
   * Submits the notes one after another and reports each.
   *
   * @param notes the note of each file, null where the file could not be sent
   * @param unsent why, by the file's index
   * @return the exit code that says most, as {@code bolo transcribe}'s
   */
  ExitCode submit(
      List<Path> files,
      List<@Nullable VoiceNote> notes,
      Map<Integer, Outcome> unsent,
      TranscriptionOptions options,
      JobOptions job) {
    ExitCode exitCode = ExitCode.OK;
    for (int i = 0; i < files.size(); i++) {
      Path file = files.get(i);
      VoiceNote note = notes.get(i);
      JobOutcome<Job> outcome =
          note == null
              ? new JobOutcome.Unreadable<>(reasonOf(unsent.get(i)), 0)
              : client.submitJob(note, options, withFileLabel(job, file), CallOptions.defaults());
      report(file, outcome);
      exitCode = ExitCode.worse(exitCode, ExitCode.of(outcome));
    }
    out.flush();
    err.flush();
    return exitCode;
  }

  private static JobOptions withFileLabel(JobOptions job, Path file) {
    Path name = file.getFileName();
    String shown = name == null ? file.toString() : name.toString();
    // A label holds at most 500 characters; a longer name is cut rather than the job refused.
    return job.withMetadata(
        FILE_LABEL, shown.substring(0, Math.min(shown.length(), JobOptions.MAX_METADATA_CHARS)));
  }

  private static String reasonOf(@Nullable Outcome unsent) {
    return Objects.requireNonNull(unsent, "an unsent file has a reason")
            instanceof Outcome.Unreadable unreadable
        ? unreadable.message()
        : unsent.toString();
  }

  private void report(Path file, JobOutcome<Job> outcome) {
    if (json) {
      out.println(JsonLine.ofJob(file, outcome));
      return;
    }
    switch (outcome) {
      case JobOutcome.Answered<Job> answered ->
          out.println((labelled ? file + ": " : "") + answered.answer().id());
      case JobOutcome.Refused<Job> refused ->
          err.println(file + ": refused: " + FailureText.of(refused.error()));
      case JobOutcome.GaveUp<Job> gaveUp ->
          err.println(
              file
                  + ": gave up after "
                  + gaveUp.attempts()
                  + " attempt(s): "
                  + FailureText.of(gaveUp.lastFailure()));
      case JobOutcome.Cancelled<Job> cancelled -> err.println(file + ": cancelled");
      case JobOutcome.Unreadable<Job> unreadable when unreadable.attempts() == 0 ->
          err.println(file + ": not sent: " + unreadable.message());
      case JobOutcome.Unreadable<Job> unreadable ->
          err.println(file + ": cannot be read: " + unreadable.message());
    }
  }
}
