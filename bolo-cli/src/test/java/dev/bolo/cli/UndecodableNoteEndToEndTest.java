package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.CleanText;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bolo transcribe} on a note the gateway cannot decode prints the gateway's sentence and
 * nothing else: one line, printable, whatever the server put in its answer.
 */
class UndecodableNoteEndToEndTest {

  /** A provider that takes 1 s a request: the gateway decodes a longer note to cut it in pieces. */
  @RegisterExtension
  final GatewayExtension gateway = new GatewayExtension(Map.of("BOLO_OPENAI_MAX_SECONDS", "1"));

  @TempDir Path dir;

  @Test
  void anM4aCutShortIsRefusedWithTheGatewaysOwnSentenceAlone() throws Exception {
    Path cut = Files.write(dir.resolve("cut.m4a"), cutM4a());

    CommandRun run =
        CommandRun.of(
            new TranscribeCommand(),
            "--server",
            gateway.baseUrl(),
            "--token",
            GatewayExtension.TOKEN,
            cut.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(run.errLines())
        .contains(
            cut
                + ": refused: HTTP 400 invalid_audio: the note cannot be opened as audio: its"
                + " container is damaged, cut short or not one the gateway reads");
    assertThat(run.out()).isEmpty();
    run.errLines().forEach(CleanText::check);
    assertThat(gateway.calls()).isZero();
  }

  @Test
  void controlBytesInAServersMessageNeverReachTheTerminal() throws Exception {
    Path note = Files.write(dir.resolve("n.wav"), EndToEndTest.wav(1000, 41));
    try (MockWebServer leaking = new MockWebServer()) {
      // What the gateway once answered: FFmpeg's words, NUL, then bytes of its memory; and an
      // escape sequence that would clear the terminal.
      leaking.enqueue(
          new MockResponse.Builder()
              .code(400)
              .addHeader("Content-Type", "application/json")
              .body(
                  "{\"error\":\"Invalid data found when processing input\\u0000java/lang/"
                      + "String;\\u0001\\u0085\\u001b[2J\\r\\nforged line\",\"code\":\"invalid_audio\","
                      + "\"request_id\":\"r\"}")
              .build());
      leaking.start();

      CommandRun run =
          CommandRun.of(
              new TranscribeCommand(Map.of(), GatewayExtension.resendAtOnce()),
              "--server",
              leaking.url("/").toString(),
              "--token",
              "t",
              note.toString());

      assertThat(run.exitCode()).isEqualTo(ExitCode.REFUSED.code());
      assertThat(run.errLines())
          .contains(
              note
                  + ": refused: HTTP 400 invalid_audio: Invalid data found when processing input"
                  + " java/lang/String; [2J forged line");
      run.errLines().forEach(CleanText::check);
    }
  }

  /** A 3.5 s m4a with its moov after the media data, cut at 8 KiB: no index, so no audio. */
  private static byte[] cutM4a() throws Exception {
    try (InputStream in =
        Objects.requireNonNull(
            UndecodableNoteEndToEndTest.class.getResourceAsStream("/audio/aac-moov-at-end.m4a"))) {
      return Arrays.copyOf(in.readAllBytes(), 8192);
    }
  }
}
