package dev.bolo.cli;

import dev.bolo.client.JobOutcome;
import dev.bolo.client.Outcome;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The exit codes of every {@code bolo} command: the one table {@code bolo --help}, each command's
 * help and docs/cli.md show (a test compares the doc with this enum). {@code bolo serve}'s codes
 * are the server's own ({@link dev.bolo.server.Main}); a test holds them equal to these.
 *
 * <p>The rule: 2 when the command line or the environment is wrong (fixing it is the remedy), 3
 * when the command was understood and refused (running it again unchanged cannot help), 4 when the
 * gateway could not be reached or kept failing after the resends (later may help), 1 when the
 * command could not do its work for another reason, which its message names.
 */
enum ExitCode {
  OK(0, "success", ""),
  FAILED(
      1,
      "failed",
      "the ledger could not be opened or is not there, the gateway could not start, the demo did"
          + " not finish; the message says why"),
  USAGE(
      2,
      "usage or configuration error",
      "an unknown command or option, a bad value, a missing token or file, a malformed BOLO_*"
          + " variable, a port in use; fix it and run again"),
  REFUSED(
      3,
      "refused",
      "the gateway refused a note (or it changed before it was sent), the ledger refused a change"
          + " (a device name taken, no such device); running it again cannot help"),
  GAVE_UP(
      4,
      "gave up",
      "no gateway answered, or it kept failing, through every resend (4 attempts within 90 s);"
          + " trying later may help"),
  CANCELLED(130, "cancelled", "Ctrl-C"),
  STOPPED(143, "stopped", "bolo serve only: a second SIGTERM or Ctrl-C cut its drain short");

  private final int code;
  private final String label;
  private final String explanation;

  ExitCode(int code, String label, String explanation) {
    this.code = code;
    this.label = label;
    this.explanation = explanation;
  }

  /** The process exit code. */
  int code() {
    return code;
  }

  /** What it means, as {@code bolo --help} and docs/cli.md say it. */
  String meaning() {
    return explanation.isEmpty() ? label : label + ": " + explanation;
  }

  /** Code to meaning, in order, for the exit code list of {@code bolo --help}. */
  static Map<String, String> helpList() {
    return list(ExitCode::meaning);
  }

  /** Code to label ("refused"), in order, for the help of each subcommand. */
  static Map<String, String> labels() {
    return list(exitCode -> exitCode.label);
  }

  private static Map<String, String> list(Function<ExitCode, String> text) {
    Map<String, String> list = new LinkedHashMap<>();
    for (ExitCode exitCode : values()) {
      list.put(String.valueOf(exitCode.code), text.apply(exitCode));
    }
    return list;
  }

  /** The exit code one note's outcome stands for. */
  static ExitCode of(Outcome outcome) {
    return switch (outcome) {
      case Outcome.Transcribed t -> OK;
      case Outcome.Refused r -> REFUSED;
      case Outcome.GaveUp g -> GAVE_UP;
      case Outcome.Cancelled c -> CANCELLED;
      // The file became unreadable after it was checked: the usage error an unreadable file is.
      case Outcome.Unreadable u -> USAGE;
      case Outcome.AudioChanged a -> REFUSED;
    };
  }

  /** The exit code one call about jobs stands for, as a note's outcome does. */
  static ExitCode of(JobOutcome<?> outcome) {
    return switch (outcome) {
      case JobOutcome.Answered<?> a -> OK;
      case JobOutcome.Refused<?> r -> REFUSED;
      case JobOutcome.GaveUp<?> g -> GAVE_UP;
      case JobOutcome.Cancelled<?> c -> CANCELLED;
      // The file was found unsendable, or became so: the usage error an unreadable file is.
      case JobOutcome.Unreadable<?> u -> USAGE;
    };
  }

  /** The exit code that says more: cancelled, then gave up, then refused, then usage, then ok. */
  static ExitCode worse(ExitCode a, ExitCode b) {
    return a.rank() >= b.rank() ? a : b;
  }

  private int rank() {
    return switch (this) {
      case OK -> 0;
      case USAGE -> 1;
      case REFUSED -> 2;
      case FAILED -> 3;
      case GAVE_UP -> 4;
      case CANCELLED, STOPPED -> 5;
    };
  }
}
