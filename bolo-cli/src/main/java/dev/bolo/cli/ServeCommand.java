package dev.bolo.cli;

import dev.bolo.server.Main;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.config.Variable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Option;

/** {@code bolo serve}: runs the gateway with the environment's configuration until stopped. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the gateway until SIGTERM or Ctrl-C.",
      "Then it lets running requests finish (BOLO_DRAIN_TIMEOUT) and exits 0. Configured by the"
          + " environment variables below; a malformed or inconsistent value, or a port in use,"
          + " stops it with one line on stderr and exit code 2. docs/configuration.md explains each variable."
    })
final class ServeCommand implements Callable<Integer> {

  /** The section key of the variables' table in the usage help. */
  static final String ENVIRONMENT = "environment";

  /** Width of the variable column: the longest name plus a gap. */
  private static final int NAME_WIDTH = 32;

  /**
   * Below this width for the descriptions beside the names (a terminal under 72 columns), each
   * description goes under its name instead: beside it, a value such as {@code
   * model=engine/model,engine/model;...} would not fit a line and be cut.
   */
  private static final int MIN_DESCRIPTION_WIDTH = 40;

  /** How far a description under its name is indented, past the names' own indent. */
  private static final String UNDER_NAME = "    ";

  /**
   * Adds the table of every {@code BOLO_*} variable to {@code serve}'s usage help, after the
   * options and before the exit codes, wrapped at spaces to the help's width.
   */
  static void addEnvironmentSection(CommandLine serve) {
    CommandLine.Model.UsageMessageSpec usage = serve.getCommandSpec().usageMessage();
    usage.sectionMap().put(ENVIRONMENT, ServeCommand::environment);
    List<String> keys = new ArrayList<>(usage.sectionKeys());
    keys.add(
        keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST_HEADING),
        ENVIRONMENT);
    usage.sectionKeys(keys);
  }

  private static String environment(Help help) {
    int width = help.commandSpec().usageMessage().width();
    // Wrapped at spaces: a default such as ./bolo-data stays whole.
    TextTable table;
    if (width - NAME_WIDTH >= MIN_DESCRIPTION_WIDTH) {
      table =
          new WordTable(
              help.colorScheme(),
              new Column(NAME_WIDTH, 2, Column.Overflow.SPAN),
              new Column(width - NAME_WIDTH, 1, Column.Overflow.WRAP));
      for (Variable variable : Variable.ALL) {
        table.addRowValues(variable.name(), variable.help());
      }
    } else {
      table = new WordTable(help.colorScheme(), new Column(width, 2, Column.Overflow.WRAP));
      table.indentWrappedLines = UNDER_NAME.length();
      for (Variable variable : Variable.ALL) {
        table.addRowValues(variable.name());
        table.addRowValues(UNDER_NAME + variable.help());
      }
    }
    return String.format("%nEnvironment variables:%n") + table;
  }

  @Option(
      names = "--tls",
      description = {
        "Serves HTTPS (BOLO_TLS=on), so that a phone's browser lets the dictation page record:"
            + " with a certificate authority of the gateway's own, kept in BOLO_DATA_DIR, unless"
            + " BOLO_TLS_CERT and BOLO_TLS_KEY name your certificate. The start-up log says what to"
            + " open on a phone; docs/connect-a-phone.md has the steps."
      })
  boolean tls;

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config;
    try {
      config = ServerConfig.fromMap(variables(System.getenv(), tls));
    } catch (ServerConfig.ConfigException e) {
      System.err.println("bolo serve: " + e.getMessage());
      return ExitCode.USAGE.code();
    }
    return Main.serve(config, () -> warmUp(config.listen().warmup()), app -> {});
  }

  /** The gateway's variables: the environment's, with {@code --tls} as {@code BOLO_TLS=on}. */
  static Map<String, String> variables(Map<String, String> environment, boolean tls) {
    Map<String, String> variables = new HashMap<>(environment);
    if (tls) {
      // The option is the more specific wish: it wins over a BOLO_TLS=off in the environment.
      variables.put(Variable.BOLO_TLS.name(), "on");
    }
    return variables;
  }

  /** {@code BOLO_WARMUP}: the request path run on a stand-in before the port opens. */
  private static void warmUp(Duration warmup) {
    if (!warmup.isZero()) {
      // Before the port opens: until then the instance is not ready, and once it is, its request
      // path is compiled (the start-up cache prepares its classes, not its compiled code).
      System.err.println(
          "bolo serve: warming the request path up for " + warmup.toSeconds() + " s…");
      try {
        int notes = AotTraining.warmUp(warmup);
        System.err.println("bolo serve: warm-up done (" + notes + " notes on a stand-in)");
      } catch (Exception e) {
        // A warm-up that failed costs only speed: serve all the same.
        System.err.println("bolo serve: warm-up failed (" + e + "); starting without it");
      }
    }
  }
}
