package dev.bolo.cli;

import java.io.Console;

/** Whether a person is watching the command's output. Stateless. */
final class Terminal {

  private Terminal() {}

  /**
   * Whether a person is watching: the JVM has a console, and on JDK 22 and later that console is a
   * terminal (from 22 on, {@code System.console()} is not null when output is piped).
   */
  static boolean isInteractive() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException | ClassCastException e) {
      // JDK 21: a console exists only when stdin and stdout are a terminal.
      return true;
    }
  }
}
