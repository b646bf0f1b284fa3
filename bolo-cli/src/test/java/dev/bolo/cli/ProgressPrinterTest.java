package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.Attempt;
import dev.bolo.client.Failure;
import dev.bolo.client.Outcome;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@code bolo transcribe} prints on stderr as a note's events arrive. */
class ProgressPrinterTest {

  private final StringWriter err = new StringWriter();
  private final Attempt attempt = new Attempt("key", 1, "r-a1");

  private final NoGatewayHint hint =
      new NoGatewayHint(
          new GatewayAddress("http://127.0.0.1:27099", "BOLO_PORT"), new PrintWriter(err), 4);

  private ProgressPrinter printer(boolean verbose) {
    return new ProgressPrinter(Path.of("note.wav"), new PrintWriter(err), verbose, 4, hint);
  }

  @Test
  void aFailedConnectionGivesTheHintOnceBeforeTheResendsAndOnlyAFailedConnectionDoes() {
    Failure refused =
        new Failure.Network(
            Failure.NetworkKind.CONNECTION,
            "ConnectException: Failed to connect to /127.0.0.1:27099");
    Failure cut = new Failure.Network(Failure.NetworkKind.CONNECTION, "SocketException: reset");
    ProgressPrinter a = printer(false);
    ProgressPrinter b = printer(false);

    a.resendScheduled(attempt, Duration.ofSeconds(2), cut);
    a.resendScheduled(attempt, Duration.ofSeconds(2), refused);
    b.resendScheduled(attempt, Duration.ofSeconds(5), refused);
    b.ended("key", new Outcome.GaveUp(refused, 4));

    assertThat(err.toString().lines())
        .containsExactly(
            "note.wav: retrying in 2 s (connection: SocketException: reset), attempt 2 of 4",
            hint.line(),
            "note.wav: retrying in 2 s (connection: ConnectException: Failed to connect to"
                + " /127.0.0.1:27099), attempt 2 of 4",
            "note.wav: retrying in 5 s (connection: ConnectException: Failed to connect to"
                + " /127.0.0.1:27099), attempt 2 of 4");
  }

  @Test
  void aNoteWhoseOnlyAttemptFoundNobodyStillGetsTheHint() {
    Failure refused =
        new Failure.Network(Failure.NetworkKind.CONNECTION, "ConnectException: refused");

    printer(false).ended("key", new Outcome.GaveUp(refused, 1));

    assertThat(err.toString().lines()).containsExactly(hint.line());
  }

  @Test
  void anErrorWithoutTheGatewaysBodyIsNotSaidTwice() {
    assertThat(FailureText.of(new Failure.Http(502, null, "HTTP 502 Bad Gateway", null, null)))
        .isEqualTo("HTTP 502 Bad Gateway");
    assertThat(FailureText.of(new Failure.Http(503, "server_unavailable", "draining", null, null)))
        .isEqualTo("HTTP 503 server_unavailable: draining");
    assertThat(FailureText.of(new Failure.Http(502, null, "<html>\n<p>bad</p>", null, null)))
        .isEqualTo("HTTP 502: <html> <p>bad</p>");
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
