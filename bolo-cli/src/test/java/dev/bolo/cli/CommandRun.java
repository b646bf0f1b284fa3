package dev.bolo.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** What one command line printed and answered. */
record CommandRun(int exitCode, String out, String err) {

  /**
   * Runs {@code command} as {@code bolo COMMAND args} runs it: under a command named bolo, with the
   * same help, exit codes and usage errors.
   */
  static CommandRun of(Object command, String... args) {
    CommandLine sub = new CommandLine(command);
    CommandLine bolo = new CommandLine(CommandSpec.create().name("bolo")).addSubcommand(sub);
    String[] all = new String[args.length + 1];
    all[0] = sub.getCommandName();
    System.arraycopy(args, 0, all, 1, args.length);
    return of(Main.configure(bolo), all);
  }

  /** Runs {@code commandLine}, catching what it prints. */
  static CommandRun of(CommandLine commandLine, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode =
        commandLine
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new CommandRun(exitCode, out.toString(), err.toString());
  }

  List<String> outLines() {
    return out.lines().toList();
  }

  List<String> errLines() {
    return err.lines().toList();
  }
}
