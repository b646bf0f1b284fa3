package dev.bolo.server.engine;

/**
 * Text a client may be shown: one line of printable characters, of bounded length. Every error
 * answer's message passes through {@link #clean} on its way out, so that whatever reached it (a
 * library's buffer, a provider's page, a client's own bytes quoted back) a phone reads a line of
 * text and never the bytes of the gateway's memory, a terminal's escape sequence or a line break
 * that forges a log line. Stateless.
 */
public final class ClientText {

  /** The longest message an error answer carries: room for any sentence Bolo writes. */
  public static final int MOST_CHARS = 1000;

  private ClientText() {}

  /**
   * {@code text} as one line: each run of white space and of characters that are not printable
   * (controls, NUL included; line and paragraph separators; invisible format characters such as
   * bidirectional overrides; private-use and unassigned code points; unpaired surrogates, which
   * UTF-8 cannot carry; U+FFFD, what undecodable bytes became) is one space, none at either end. At
   * most {@code mostChars} characters, the last of them "…" when it was cut, never inside a
   * surrogate pair. Empty when nothing printable is left.
   */
  public static String clean(String text, int mostChars) {
    if (mostChars < 1) {
      throw new IllegalArgumentException("mostChars must be >= 1: " + mostChars);
    }
    StringBuilder line = new StringBuilder(Math.min(text.length(), mostChars + 2));
    boolean gap = false;
    for (int at = 0; at < text.length() && line.length() <= mostChars; ) {
      int c = text.codePointAt(at);
      at += Character.charCount(c);
      if (Character.isWhitespace(c) || Character.isSpaceChar(c) || !isPrintable(c)) {
        gap = !line.isEmpty();
        continue;
      }
      if (gap) {
        line.append(' ');
        gap = false;
      }
      line.appendCodePoint(c);
    }
    if (line.length() <= mostChars) {
      return line.toString();
    }
    int end = mostChars - 1;
    if (Character.isLowSurrogate(line.charAt(end))) {
      // Cut before the pair, not between its halves.
      end--;
    }
    return line.substring(0, end).stripTrailing() + "…";
  }

  /**
   * A value a client sent, quoted in a message about it: {@link #clean}, and at most {@code
   * valueChars} characters of it, then "…" when it went on; the message is for a person, not a
   * mirror.
   */
  public static String shown(String value, int valueChars) {
    return clean(value, valueChars + 1);
  }

  /** Whether {@code codePoint} is a visible character or a space a person can read. */
  static boolean isPrintable(int codePoint) {
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
}
