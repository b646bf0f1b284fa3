package dev.bolo.cli;

import dev.bolo.client.Outcome;

/**
 * {@code bolo transcribe}'s exit codes, as its {@code --help} lists them, and which one a run of
 * several notes ends with. Stateless.
 */
final class ExitCode {

  static final int OK = 0;
  static final int USAGE = 2;
  static final int REFUSED = 3;
  static final int GAVE_UP = 4;
  static final int CANCELLED = 130;

  private ExitCode() {}

  /** The exit code one note's outcome stands for. */
  static int of(Outcome outcome) {
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

  /** The exit code that says more: cancelled, then gave up, then refused, then ok. */
  static int worse(int a, int b) {
    return rank(a) >= rank(b) ? a : b;
  }

  private static int rank(int exitCode) {
    return switch (exitCode) {
      case CANCELLED -> 4;
      case GAVE_UP -> 3;
      case REFUSED -> 2;
      case USAGE -> 1;
      default -> 0;
    };
  }
}
