package dev.bolo.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/** What one command line printed and answered. */
record CommandRun(int exitCode, String out, String err) {

  static CommandRun of(Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode =
        new CommandLine(command)
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new CommandRun(exitCode, out.toString(), err.toString());
  }

  List<String> outLines() {
    return out.lines().toList();
  }
}
