package dev.bolo.cli;

import dev.bolo.client.Outcome;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * Prints how each note ended: its transcript on stdout (labelled by file when there are several),
 * why it was not transcribed on stderr, or with {@code --json} one {@link JsonLine} per note on
 * stdout. Not thread-safe: the command reports its notes one after another.
 */
final class OutcomeReport {

  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean json;
  private final boolean labelled;

  /**
   * @param labelled whether transcripts are prefixed with their file, as when there are several
   */
  OutcomeReport(PrintWriter out, PrintWriter err, boolean json, boolean labelled) {
    this.out = out;
    this.err = err;
    this.json = json;
    this.labelled = labelled;
  }

  void report(Path file, Outcome outcome) {
    if (json) {
      out.println(JsonLine.of(file, outcome));
      return;
    }
    String label = labelled ? file + ": " : "";
    switch (outcome) {
      case Outcome.Transcribed t -> out.println(label + t.transcript().text());
      case Outcome.Refused r -> err.println(file + ": refused: " + FailureText.of(r.error()));
      case Outcome.GaveUp g ->
          err.println(
              file
                  + ": gave up after "
                  + g.attempts()
                  + " attempt(s): "
                  + FailureText.of(g.lastFailure()));
      case Outcome.Cancelled c -> err.println(file + ": cancelled");
      // No attempt: the command found the file unsendable before sending anything.
      case Outcome.Unreadable u when u.attempts() == 0 ->
          err.println(file + ": not sent: " + u.message());
      case Outcome.Unreadable u -> err.println(file + ": cannot be read: " + u.message());
      case Outcome.AudioChanged a -> err.println(file + ": not sent: " + a.message());
    }
  }

  void flush() {
    out.flush();
    err.flush();
  }
}
