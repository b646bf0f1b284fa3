package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.Variable;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --help} works on every command and subcommand and says everything, wrapped by picocli. */
class HelpTest {

  @Test
  void everyCommandAndSubcommandAnswersHelpWithExitZero() {
    List<List<String>> paths = new ArrayList<>();
    collect(Main.commandLine(), new ArrayList<>(), paths);
    assertThat(paths)
        .contains(
            List.of("devices", "add"),
            List.of("devices", "list"),
            List.of("devices", "revoke"),
            List.of("devices", "quota"),
            List.of("serve"),
            List.of("transcribe"));

    for (List<String> path : paths) {
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      CommandRun run = help(args.toArray(String[]::new));
      assertThat(run.exitCode()).as("%s: %s", args, run.err()).isZero();
      assertThat(run.err()).as("%s", args).isEmpty();
      assertThat(run.out()).as("%s", args).startsWith("Usage: bolo " + String.join(" ", path));
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

  private static CommandRun help(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine bolo = Main.commandLine();
    bolo.setOut(new PrintWriter(out, true));
    bolo.setErr(new PrintWriter(err, true));
    int exit = bolo.execute(args);
    return new CommandRun(exit, out.toString(), err.toString());
  }
}
