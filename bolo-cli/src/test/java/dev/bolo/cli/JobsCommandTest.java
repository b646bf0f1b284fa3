package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code bolo transcribe --async} and {@code bolo jobs} against the real gateway. */
class JobsCommandTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();
  @TempDir Path dir;

  private String[] withGateway(String... args) {
    String[] all = new String[args.length + 4];
    all[0] = "--server";
    all[1] = gateway.baseUrl();
    all[2] = "--token";
    all[3] = GatewayExtension.TOKEN;
    System.arraycopy(args, 0, all, 4, args.length);
    return all;
  }

  private CommandRun transcribe(String... args) {
    return CommandRun.of(new TranscribeCommand(), withGateway(args));
  }

  private CommandRun jobs(String... args) {
    return CommandRun.of(
        new JobsCommand(Map.of(), GatewayExtension.resendAtOnce(), ZoneOffset.UTC),
        withGateway(args));
  }

  private Path wav(String name, long seed) throws Exception {
    return Files.write(dir.resolve(name), EndToEndTest.wav(1000, seed));
  }

  @Test
  void eachNoteBecomesAJobWhoseIdIsPrintedAndWhoseTextBoloJobsShows() throws Exception {
    Path a = wav("a.wav", 41);
    Path b = wav("b.wav", 42);

    CommandRun submitted =
        transcribe("--async", a.toString(), dir.resolve("missing.wav").toString(), b.toString());

    // The missing file is the run's usage error; the two others are jobs all the same.
    assertThat(submitted.exitCode()).as(submitted.err()).isEqualTo(2);
    assertThat(submitted.errLines())
        .containsExactly("%s: not sent: no such file".formatted(dir.resolve("missing.wav")));
    assertThat(submitted.outLines())
        .hasSize(2)
        .allMatch(line -> line.matches(".*[ab]\\.wav: job_[0-9a-f]{24}"));
    List<String> ids =
        submitted.outLines().stream().map(line -> line.replaceAll(".*: ", "")).toList();

    for (String id : ids) {
      AtomicReference<CommandRun> shown = new AtomicReference<>();
      Await.until(
          () -> {
            shown.set(jobs(id));
            return shown.get().out().contains("succeeded");
          },
          () -> shown.get().out() + shown.get().err());
      assertThat(shown.get().exitCode()).isZero();
      assertThat(shown.get().outLines())
          .contains("id:        " + id, "status:    succeeded", "progress:  1.0 s")
          .anyMatch(line -> line.matches("file:      [ab]\\.wav"))
          .anyMatch(line -> line.matches("text:      note number [12]"));
    }
    CommandRun table = jobs();
    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.outLines().get(0)).startsWith("ID").contains("STATUS", "CREATED", "SECONDS");
    assertThat(table.outLines())
        .hasSize(3)
        .anyMatch(
            line ->
                line.startsWith(ids.get(0))
                    && line.contains(" succeeded ")
                    && line.contains("a.wav: note number"))
        .anyMatch(line -> line.startsWith(ids.get(1)) && line.contains("b.wav: note number"));
    assertThat(jobs("--status", "failed").out()).isEqualTo("no jobs failed\n");
    assertThat(gateway.calls()).isEqualTo(2);
  }

  @Test
  void aWebhookTheGatewayMayNotCallAndAnUnknownJobAreRefused() throws Exception {
    Path a = wav("a.wav", 43);

    CommandRun refused =
        transcribe("--async", "--webhook-url", "http://127.0.0.1:9/hook", a.toString());
    CommandRun unknown = jobs("job_000000000000000000000000");
    CommandRun withoutAsync = transcribe("--webhook-url", "https://hooks.example/", a.toString());

    assertThat(refused.exitCode()).isEqualTo(3);
    assertThat(refused.err()).contains("a.wav: refused: HTTP 400 invalid_parameter: ");
    assertThat(refused.out()).isEmpty();
    assertThat(unknown.exitCode()).isEqualTo(3);
    assertThat(unknown.err())
        .startsWith("bolo jobs job_000000000000000000000000: refused: HTTP 404 not_found: ");
    assertThat(withoutAsync.exitCode()).isEqualTo(2);
    assertThat(withoutAsync.err()).contains("--webhook-url needs --async");
    assertThat(gateway.calls()).isZero();
  }
}
