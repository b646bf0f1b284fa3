package dev.bolo.cli;

import picocli.CommandLine;

/** Entry point of {@code ./bolo}. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command tree, for tests. */
  public static CommandLine commandLine() {
    return new CommandLine(new BoloCommand());
  }
}
