package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.config.Variable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --help} works on every command and subcommand and says everything, wrapped by picocli. */
class HelpTest {

  @Test
  void everyCommandAndSubcommandAnswersHelpWithExitZero() {
    List<List<String>> paths = commandPaths();
    assertThat(paths)
        .contains(
            List.of("devices", "add"),
            List.of("devices", "list"),
            List.of("devices", "revoke"),
            List.of("devices", "quota"),
            List.of("serve"),
            List.of("transcribe"));

    for (List<String> path : paths) {
      String[] args = withHelp(path);
      CommandRun run = help(args);
      assertThat(run.exitCode()).as("%s: %s", path, run.err()).isZero();
      assertThat(run.err()).as("%s", path).isEmpty();
      assertThat(run.out()).as("%s", path).startsWith("Usage: bolo " + String.join(" ", path));
    }
  }

  @Test
  void helpIsWrappedAtSpacesSoNoPathUrlOrNameIsCutAtAnyWidth() {
    for (List<String> path : commandPaths()) {
      String[] args = withHelp(path);
      Set<String> whole = new HashSet<>(List.of(words(help(1000, args).out())));
      for (int width : new int[] {55, 64, 80, 100, 132}) {
        String help = help(width, args).out();

        assertThat(words(help))
            .as("%s at width %d:%n%s", path, width, help)
            .allSatisfy(word -> assertThat(whole).contains(word));
        assertThat(help.lines())
            .allSatisfy(line -> assertThat(line).hasSizeLessThanOrEqualTo(width));
      }
    }
  }

  @Test
  void aDefaultThatIsAPathStaysWholeInServesVariables() {
    for (int width : new int[] {80, 81, 82, 83}) {
      assertThat(help(width, "serve", "--help").out())
          .as("width %d", width)
          .containsPattern("\\s\\(default\\s+\\./bolo-data\\)\\n");
    }
  }

  @Test
  void serveHelpListsEveryVariableAndItsDescriptionIsComplete() {
    String help = help("serve", "--help").out();

    assertThat(Variable.ALL).allSatisfy(variable -> assertThat(help).contains(variable.name()));
    assertThat(help).contains("Environment variables:").contains("explains each variable.");
    assertThat(help).contains("--tls").contains("docs/connect-a-phone.md");
    assertThat(help.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
  }

  @Test
  void serveTlsIsBoloTlsOnWhateverTheEnvironmentSays() {
    assertThat(ServeCommand.variables(java.util.Map.of("BOLO_TLS", "off", "BOLO_PORT", "9"), true))
        .containsEntry("BOLO_TLS", "on")
        .containsEntry("BOLO_PORT", "9");
    assertThat(ServeCommand.variables(java.util.Map.of("BOLO_TLS", "off"), false))
        .containsEntry("BOLO_TLS", "off");
  }

  @Test
  void transcribeHelpKeepsTheDefaultUrlWhole() {
    String help = help("transcribe", "--help").out();

    assertThat(help).contains("http://127.0.0.1:8080").contains("--[no-]progress");
    assertThat(help.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
  }

  @Test
  void boloAloneAnswersWithItsHelp() {
    CommandRun run = help();

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("Usage: bolo ").contains("Commands:");
  }

  /** Every command and subcommand, as the words that name it: [devices, add]. */
  static List<List<String>> commandPaths() {
    List<List<String>> paths = new ArrayList<>();
    collect(Main.commandLine(), new ArrayList<>(), paths);
    return paths;
  }

  private static String[] withHelp(List<String> path) {
    List<String> args = new ArrayList<>(path);
    args.add("--help");
    return args.toArray(String[]::new);
  }

  private static String[] words(String text) {
    return text.strip().split("\\s+");
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> out) {
    command
        .getSubcommands()
        .forEach(
            (name, sub) -> {
              // Each subcommand once, under its own name (not its aliases).
              if (!name.equals(sub.getCommandName()) || name.equals("help")) {
                return;
              }
              List<String> here = new ArrayList<>(path);
              here.add(name);
              out.add(here);
              collect(sub, here, out);
            });
  }

  static CommandRun help(String... args) {
    return CommandRun.of(Main.commandLine(), args);
  }

  /** The help at {@code width} columns, as a terminal that wide would get it. */
  static CommandRun help(int width, String... args) {
    CommandLine bolo = Main.commandLine();
    bolo.setUsageHelpAutoWidth(false);
    bolo.setUsageHelpWidth(width);
    return CommandRun.of(bolo, args);
  }
}
