package dev.bolo.testkit;

/**
 * The check that a message a client may receive (an error's text, a refusal's reason) is one line
 * of printable text of bounded length: at most {@link #MOST_CHARS} characters, none of them a
 * control character (NUL and the C0 and C1 ranges), a line or paragraph separator, an invisible
 * format character (bidirectional overrides, zero-width joiners), a private-use or unassigned code
 * point, an unpaired surrogate (which has no UTF-8 form) or U+FFFD (what undecodable bytes become).
 * Bytes of a native buffer or of a binary file read as text always fail it. Stateless.
 */
public final class CleanText {

  /**
   * Longer than any sentence Bolo writes, with a quoted value or a list of models in it; far
   * shorter than anything that is not a sentence.
   */
  public static final int MOST_CHARS = 1000;

  private CleanText() {}

  /**
   * Returns {@code message} when it is clean.
   *
   * @throws AssertionError naming the first character that is not, with where it is, or the length
   */
  public static String check(String message) {
    if (message == null) {
      throw new AssertionError("a message is null");
    }
    if (message.isBlank()) {
      throw new AssertionError("a message is blank: \"" + message + "\"");
    }
    if (message.length() > MOST_CHARS) {
      throw new AssertionError(
          "a message of "
              + message.length()
              + " characters, more than "
              + MOST_CHARS
              + ": "
              + escaped(message.substring(0, 120))
              + "…");
    }
    for (int at = 0; at < message.length(); ) {
      int c = message.codePointAt(at);
      if (!isPrintable(c)) {
        throw new AssertionError(
            String.format(
                "a message holds U+%04X at %d of %d: %s",
                c, at, message.length(), escaped(message)));
      }
      at += Character.charCount(c);
    }
    return message;
  }

  /** Whether {@code codePoint} may stand in one line of text a person reads. */
  public static boolean isPrintable(int codePoint) {
    if (codePoint == 0xFFFD) {
      return false;
    }
    return switch (Character.getType(codePoint)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.SURROGATE,
          Character.PRIVATE_USE,
          Character.UNASSIGNED,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR ->
          false;
      default -> true;
    };
  }

  /** The message with every character that fails the check shown as {@code \}{@code uXXXX}. */
  private static String escaped(String message) {
    StringBuilder shown = new StringBuilder();
    message
        .codePoints()
        .forEach(
            c -> {
              if (isPrintable(c)) {
                shown.appendCodePoint(c);
              } else {
                shown.append(String.format("\\u%04X", c));
              }
            });
    return shown.toString();
  }
}
