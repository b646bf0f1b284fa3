package dev.bolo.cli;

import java.util.Objects;
import picocli.CommandLine;

/** Entry point of {@code ./bolo}. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command tree, for tests, with {@link #configure} applied. */
  public static CommandLine commandLine() {
    CommandLine bolo = configure(new CommandLine(new BoloCommand()));
    ServeCommand.addEnvironmentSection(
        Objects.requireNonNull(bolo.getSubcommands().get("serve"), "serve"));
    return bolo;
  }

  /**
   * What every command of {@code bolo} shares, set here for the whole tree so that a new subcommand
   * cannot miss it: {@code --help} and {@code --version}; help wrapped at words to the terminal's
   * width; the exit codes in every help; and a usage mistake answered with one line and the help to
   * read, exit code 2.
   */
  static CommandLine configure(CommandLine command) {
    command.setHelpFactory(WordWrappedHelp.FACTORY);
    command.setParameterExceptionHandler(new UsageErrorHandler());
    withStandardHelp(command);
    return command;
  }

  private static void withStandardHelp(CommandLine command) {
    if (!command.getCommandSpec().mixinStandardHelpOptions()) {
      command.getCommandSpec().mixinStandardHelpOptions(true);
    }
    command.setUsageHelpAutoWidth(true);
    CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
    if (command.getParent() == null) {
      // The whole table once, at the top; each subcommand names the codes and points here.
      usage.exitCodeListHeading("%nExit codes, the same for every command:%n");
      usage.exitCodeList(ExitCode.helpList());
    } else {
      usage.exitCodeListHeading("%nExit codes (`bolo --help` says what each means):%n");
      usage.exitCodeList(ExitCode.labels());
    }
    command.getSubcommands().values().forEach(Main::withStandardHelp);
  }
}
