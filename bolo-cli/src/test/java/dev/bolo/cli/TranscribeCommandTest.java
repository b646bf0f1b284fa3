package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.client.Failure;
import dev.bolo.client.Outcome;
import dev.bolo.client.Transcript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code bolo transcribe} against the real gateway: its output, progress and exit codes. */
class TranscribeCommandTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();
  @TempDir Path dir;

  private CommandRun transcribe(String... args) {
    String[] all = new String[args.length + 4];
    all[0] = "--server";
    all[1] = gateway.baseUrl();
    all[2] = "--token";
    all[3] = GatewayExtension.TOKEN;
    System.arraycopy(args, 0, all, 4, args.length);
    return CommandRun.of(new TranscribeCommand(), all);
  }

  private Path wav(String name, long seed) throws Exception {
    return Files.write(dir.resolve(name), EndToEndTest.wav(1000, seed));
  }

  @Test
  void everyNoteIsTranscribedAndTheExitCodeIsZero() throws Exception {
    Path a = wav("a.wav", 21);
    Path b = wav("b.wav", 22);

    CommandRun run = transcribe(a.toString(), b.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.outLines())
        .hasSize(2)
        .allMatch(line -> line.matches(".*[ab]\\.wav: note number \\d"));
  }

  @Test
  void aResendIsShownOnStderrAndTheNoteStillTranscribed() throws Exception {
    gateway.failFirst(1);

    CommandRun run = transcribe("--json", wav("a.wav", 23).toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err())
        .containsPattern(
            "a\\.wav: retrying in 2 s \\(HTTP 503 upstream_\\w+: .+\\), attempt 2 of 4");
    assertThat(run.out()).contains("\"attempts\":2,\"status\":\"transcribed\"");
  }

  @Test
  void theGatewaysOwnMessageFollowsItsStatusAndCodeInEachResendAndWhenItGivesUp() throws Exception {
    String message = "the transcription provider cannot be reached";
    try (MockWebServer standIn = new MockWebServer()) {
      // PROTOCOL.md's error shape: 503 to every upload, 404 to every lookup before a resend.
      standIn.setDispatcher(
          new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
              boolean lookup = "GET".equals(request.getMethod());
              return new MockResponse.Builder()
                  .code(lookup ? 404 : 503)
                  .addHeader("Content-Type", "application/json")
                  .body(
                      lookup
                          ? "{\"error\":\"no such work\",\"code\":\"not_found\",\"request_id\":\"r\"}"
                          : "{\"error\":\""
                              + message
                              + "\",\"code\":\"upstream_unavailable\",\"request_id\":\"r\"}")
                  .build();
            }
          });
      standIn.start();
      String note = wav("n.wav", 24).toString();
      String[] args = {"--server", standIn.url("/").toString(), "--token", "t", note};

      CommandRun run =
          CommandRun.of(new TranscribeCommand(Map.of(), GatewayExtension.resendAtOnce()), args);

      assertThat(run.exitCode()).isEqualTo(ExitCode.GAVE_UP.code());
      assertThat(run.err())
          .contains(
              "n.wav: retrying in 2 s (HTTP 503 upstream_unavailable: " + message + "), attempt 2",
              "n.wav: gave up after 4 attempt(s): HTTP 503 upstream_unavailable: " + message);
    }
  }

  @Test
  void jsonPrintsTheGatewaysWholeAnswerForEachNote() throws Exception {
    CommandRun run = transcribe("--json", wav("a.wav", 31).toString(), wav("b.wav", 32).toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.outLines()).hasSize(2);
    for (String line : run.outLines()) {
      JsonNode answer = new ObjectMapper().readTree(line);
      assertThat(answer.get("file").asText()).endsWith(".wav");
      assertThat(answer.get("status").asText()).isEqualTo("transcribed");
      assertThat(answer.get("text").asText()).startsWith("note number ");
      assertThat(answer.get("deduplicated").isBoolean()).isTrue();
      assertThat(answer.get("audio_sha256").asText()).matches("[0-9a-f]{64}");
      assertThat(answer.get("duration_ms").isNumber()).as(line).isTrue();
      assertThat(answer.get("request_id").asText()).isNotBlank();
      assertThat(answer.get("engine").asText()).isNotBlank();
    }
  }

  @Test
  void aNoteTheGatewayRefusesExitsThreeWithTheReason() throws Exception {
    Path text = Files.writeString(dir.resolve("notes.wav"), "not audio", StandardCharsets.US_ASCII);

    CommandRun run = transcribe(text.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(run.err()).contains("notes.wav: refused: HTTP 415");
  }

  @Test
  void aMissingFileOrTokenIsAUsageError() {
    CommandRun missingFile = transcribe(dir.resolve("nope.wav").toString());
    CommandRun noToken =
        CommandRun.of(new TranscribeCommand(), "--server", gateway.baseUrl(), "--token", " ", "x");

    assertThat(missingFile.exitCode()).isEqualTo(2);
    assertThat(missingFile.errLines())
        .containsExactly(dir.resolve("nope.wav") + ": not sent: no such file");
    assertThat(noToken.exitCode()).isEqualTo(2);
    assertThat(gateway.calls()).isZero();
  }

  @Test
  void badFilesAmongGoodOnesAreEachReportedOnTheirLineWhileTheGoodOnesAreTranscribed()
      throws Exception {
    Path text = Files.writeString(dir.resolve("a.txt"), "milk, eggs", StandardCharsets.US_ASCII);
    Path good = wav("b.wav", 41);
    Path empty = Files.createFile(dir.resolve("empty.wav"));
    Path folder = Files.createDirectory(dir.resolve("notes"));
    Path missing = dir.resolve("gone.wav");

    CommandRun run =
        transcribe(
            text.toString(),
            good.toString(),
            empty.toString(),
            folder.toString(),
            missing.toString());

    assertThat(run.outLines()).containsExactly(good + ": note number 1");
    assertThat(run.errLines())
        .hasSize(4)
        .contains(
            empty + ": not sent: the file is empty: there is no audio to send",
            folder + ": not sent: a folder, not an audio file",
            missing + ": not sent: no such file")
        .anyMatch(line -> line.startsWith(text + ": refused: HTTP 415 unsupported_audio: "));
    // The code that says most: the gateway refused one note; the others' lines say the rest.
    assertThat(run.exitCode()).isEqualTo(ExitCode.REFUSED.code());
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void aFileThatCannotBeReadBesideGoodOnesEndsTheRunWithTheUsageErrorItIs() throws Exception {
    Path good = wav("a.wav", 42);
    Path empty = Files.createFile(dir.resolve("empty.wav"));

    CommandRun run = transcribe("--json", good.toString(), empty.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.outLines()).hasSize(2);
    assertThat(run.outLines().get(0)).contains("\"status\":\"transcribed\"");
    assertThat(run.outLines().get(1))
        .isEqualTo(
            "{\"file\":"
                + JsonLine.quote(empty.toString())
                + ",\"attempts\":0,\"status\":\"unreadable\","
                + "\"error\":\"the file is empty: there is no audio to send\"}");
  }

  @Test
  void everyOutcomeHasItsExitCodeAndTheWorstOneWins() {
    Failure.Http refusal = new Failure.Http(415, "unsupported_audio", "no", null, null);
    Transcript text = new Transcript("hi", false, "ab", null, "r", "offline");

    assertThat(ExitCode.of(new Outcome.Transcribed(text, 1)).code()).isZero();
    assertThat(ExitCode.of(new Outcome.Unreadable("gone", 1)).code()).isEqualTo(2);
    assertThat(ExitCode.of(new Outcome.Refused(refusal, 1)).code()).isEqualTo(3);
    assertThat(ExitCode.of(new Outcome.AudioChanged("a", "b", 2)).code()).isEqualTo(3);
    assertThat(ExitCode.of(new Outcome.GaveUp(refusal, 4)).code()).isEqualTo(4);
    assertThat(ExitCode.of(new Outcome.Cancelled(1)).code()).isEqualTo(130);
    assertThat(ExitCode.worse(ExitCode.REFUSED, ExitCode.GAVE_UP)).isEqualTo(ExitCode.GAVE_UP);
    assertThat(ExitCode.worse(ExitCode.CANCELLED, ExitCode.GAVE_UP)).isEqualTo(ExitCode.CANCELLED);
    assertThat(ExitCode.worse(ExitCode.USAGE, ExitCode.REFUSED)).isEqualTo(ExitCode.REFUSED);
    assertThat(ExitCode.worse(ExitCode.OK, ExitCode.USAGE)).isEqualTo(ExitCode.USAGE);
  }

  @Test
  void aServerUrlEndingInV1AsTheOpenAiSdksTakeItIsAccepted() throws Exception {
    CommandRun run =
        CommandRun.of(
            new TranscribeCommand(),
            "--server",
            gateway.baseUrl() + "/v1/",
            "--token",
            GatewayExtension.TOKEN,
            wav("v.wav", 31).toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("note number");
  }

  @Test
  void progressShowsTheUploadTheWaitAndEachAttemptOfFour() throws Exception {
    gateway.failFirst(1);
    Path note = wav("p.wav", 32);

    CommandRun run = transcribe("--progress", note.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err())
        .contains("p.wav: attempt 1 of 4: sent ")
        .containsPattern(
            "p\\.wav: retrying in 2 s \\(HTTP 503 upstream_\\w+: .+\\), attempt 2 of 4")
        .containsPattern(
            "p\\.wav: attempt 2 of 4: sent \\d+ of \\d+ bytes; waiting for the transcript");
  }

  @Test
  void withoutATerminalOnlyResendsAreShown() throws Exception {
    CommandRun run = transcribe(wav("q.wav", 33).toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).doesNotContain("sent ").doesNotContain("waiting");
  }
}
