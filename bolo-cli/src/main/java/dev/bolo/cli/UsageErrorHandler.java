package dev.bolo.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A usage mistake in any command, found by picocli or thrown by the command as a {@link
 * ParameterException}: one line saying what is wrong, one line naming the help to read, exit code
 * {@link ExitCode#USAGE}. Not the whole help: the mistake would scroll away above it. Stateless.
 */
final class UsageErrorHandler implements IParameterExceptionHandler {

  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    String name = command.getCommandSpec().qualifiedName();
    PrintWriter err = command.getErr();
    err.println(name + ": " + message(e));
    err.println("see `" + name + " --help`");
    err.flush();
    return ExitCode.USAGE.code();
  }

  /** picocli's message, or for a word where a command was expected, the commands there are. */
  static String message(ParameterException e) {
    CommandLine command = e.getCommandLine();
    if (e instanceof UnmatchedArgumentException unmatched
        && !unmatched.isUnknownOption()
        && !command.getSubcommands().isEmpty()
        && !unmatched.getUnmatched().isEmpty()) {
      List<String> suggestions = unmatched.getSuggestions();
      return "unknown command '"
          + unmatched.getUnmatched().getFirst()
          + "'"
          + (suggestions.isEmpty()
              ? "; the commands are " + String.join(", ", commands(command))
              : "; did you mean " + String.join(" or ", suggestions) + "?");
    }
    String message = String.valueOf(e.getMessage());
    // picocli's messages start with a capital ("Missing required parameter: 'FILE'"); a name such
    // as BOLO_PORT keeps its case.
    boolean capitalised =
        message.length() > 1
            && Character.isUpperCase(message.charAt(0))
            && Character.isLowerCase(message.charAt(1));
    return capitalised ? Character.toLowerCase(message.charAt(0)) + message.substring(1) : message;
  }

  private static List<String> commands(CommandLine command) {
    return command.getSubcommands().entrySet().stream()
        .filter(entry -> entry.getKey().equals(entry.getValue().getCommandName()))
        .filter(entry -> !entry.getValue().getCommandSpec().usageMessage().hidden())
        .map(entry -> entry.getKey())
        .toList();
  }
}
