package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.Attempt;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What {@code bolo transcribe} prints on stderr as a note's events arrive. */
class ProgressPrinterTest {

  private final StringWriter err = new StringWriter();
  private final Attempt attempt = new Attempt("key", 1, "r-a1");

  private ProgressPrinter printer(boolean verbose) {
    return new ProgressPrinter(Path.of("note.wav"), new PrintWriter(err), verbose, 4);
  }

  @Test
  void theGatewaysProgressIsShownInWholeSeconds() {
    ProgressPrinter progress = printer(true);

    progress.transcriptionProgress(attempt, 120.4, 600);
    progress.transcriptionProgress(attempt, 240.6, 600);

    assertThat(err.toString().lines())
        .containsExactly(
            "note.wav: transcribing: 120 of 600 s", "note.wav: transcribing: 241 of 600 s");
  }

  @Test
  void anAnswerThatAddsNothingIsNotShownAgain() {
    ProgressPrinter progress = printer(true);

    progress.transcriptionProgress(attempt, 120, 600);
    progress.transcriptionProgress(attempt, 120.2, 600);

    assertThat(err.toString().lines()).containsExactly("note.wav: transcribing: 120 of 600 s");
  }

  @Test
  void pipedOutputStaysQuiet() {
    printer(false).transcriptionProgress(attempt, 120, 600);

    assertThat(err.toString()).isEmpty();
  }
}
