package dev.bolo.cli;

import picocli.CommandLine;

/** Entry point of {@code ./bolo}. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The command tree, for tests. Every command and subcommand answers {@code --help} and {@code
   * --version} (set here for the whole tree, so a new subcommand cannot miss it), and help is
   * wrapped by picocli to the terminal's width.
   */
  public static CommandLine commandLine() {
    CommandLine bolo = new CommandLine(new BoloCommand());
    withStandardHelp(bolo);
    ServeCommand.addEnvironmentSection(
        java.util.Objects.requireNonNull(bolo.getSubcommands().get("serve"), "serve"));
    return bolo;
  }

  private static void withStandardHelp(CommandLine command) {
    if (!command.getCommandSpec().mixinStandardHelpOptions()) {
      command.getCommandSpec().mixinStandardHelpOptions(true);
    }
    command.setUsageHelpAutoWidth(true);
    command.getSubcommands().values().forEach(Main::withStandardHelp);
  }
}
