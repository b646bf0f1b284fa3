package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One table of exit codes: {@link ExitCode}, shown by every help and docs/cli.md alike. */
class ExitCodeTest {

  private static final Path CLI_DOC = Checkout.ROOT.resolve("docs/cli.md");

  @Test
  void boloHelpListsEveryCodeWithWhatItMeans() {
    String help = oneLine(HelpTest.help(1000, "--help").out());

    for (ExitCode exitCode : ExitCode.values()) {
      assertThat(help)
          .containsPattern("\\b" + exitCode.code() + " +\\Q" + exitCode.meaning() + "\\E");
    }
  }

  @Test
  void everySubcommandsHelpNamesEveryCodeAndPointsAtTheTable() {
    for (List<String> path : HelpTest.commandPaths()) {
      List<String> args = new java.util.ArrayList<>(path);
      args.add("--help");
      String help = HelpTest.help(100, args.toArray(String[]::new)).out();

      assertThat(help).as("%s", path).contains("`bolo --help` says what each means");
      for (ExitCode exitCode : ExitCode.values()) {
        assertThat(help).as("%s", path).containsPattern("\\n  " + exitCode.code() + " +\\w");
      }
    }
  }

  @Test
  void docsCliMdCarriesTheSameTable() throws IOException {
    StringBuilder table = new StringBuilder("| code | meaning |\n|---|---|\n");
    for (ExitCode exitCode : ExitCode.values()) {
      table.append("| ").append(exitCode.code()).append(" | ").append(exitCode.meaning());
      table.append(" |\n");
    }

    assertThat(Files.readString(CLI_DOC)).contains(table);
  }

  @Test
  void serveEndsWithTheSameCodesAsEveryOtherCommand() {
    assertThat(dev.bolo.server.Main.CANNOT_START).isEqualTo(ExitCode.FAILED.code());
    assertThat(dev.bolo.server.Main.CONFIG_ERROR).isEqualTo(ExitCode.USAGE.code());
    assertThat(dev.bolo.server.Main.PORT_IN_USE).isEqualTo(ExitCode.USAGE.code());
    assertThat(dev.bolo.server.Main.SECOND_SIGNAL).isEqualTo(ExitCode.STOPPED.code());
  }

  @Test
  void usageMistakesAnswerOneLineAndTheHelpToReadWithExitTwo() {
    String[][] mistakes = {
      {"zzz"}, {"serv"}, {"transcribe"}, {"transcribe", "--bogus", "x"}, {"devices", "rename"}
    };
    for (String[] args : mistakes) {
      CommandRun run = HelpTest.help(args);

      assertThat(run.exitCode()).as("%s", List.of(args)).isEqualTo(ExitCode.USAGE.code());
      assertThat(run.errLines()).as("%s", List.of(args)).hasSize(2);
      assertThat(run.errLines().get(1)).matches("see `bolo( \\w+)? --help`");
      assertThat(run.err()).doesNotContain("Usage:");
    }
    assertThat(HelpTest.help("zzz").errLines().getFirst())
        .isEqualTo(
            "bolo: unknown command 'zzz'; the commands are demo, serve, transcribe,"
                + " jobs, devices, usage");
    assertThat(HelpTest.help("serv").errLines().getFirst())
        .isEqualTo("bolo: unknown command 'serv'; did you mean serve?");
    assertThat(HelpTest.help("transcribe").errLines())
        .containsExactly(
            "bolo transcribe: missing required parameter: 'FILE'", "see `bolo transcribe --help`");
  }

  private static String oneLine(String text) {
    return text.replaceAll("\\s+", " ");
  }
}
