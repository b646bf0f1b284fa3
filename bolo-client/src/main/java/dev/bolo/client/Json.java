package dev.bolo.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A small strict JSON reader (RFC 8259) for the gateway's answers, so the SDK needs no JSON library
 * on an app's class path. Objects become {@code Map<String, Object>}, arrays {@code List}, numbers
 * {@code Double} or {@code Long}, and {@code null} a {@link #NULL} marker.
 */
final class Json {

  /** Stands for JSON {@code null}, since maps here hold no Java null. */
  static final Object NULL = new Object();

  /**
   * The deepest nesting of arrays and objects read. The gateway's answers are two levels deep; a
   * hostile body of 100,000 {@code [} would otherwise overflow the stack of this recursive reader.
   */
  static final int MAX_DEPTH = 64;

  /** The longest number read, in characters. */
  static final int MAX_NUMBER_CHARS = 100;

  private final String text;
  private int pos;
  private int depth;

  private Json(String text) {
    this.text = text;
  }

  /**
   * Parses a JSON document.
   *
   * @throws IllegalArgumentException if it is not valid JSON or nests deeper than {@link
   *     #MAX_DEPTH}
   */
  static Object parse(String text) {
    Json json = new Json(text);
    json.skipWhitespace();
    Object value = json.value();
    json.skipWhitespace();
    if (json.pos != text.length()) {
      throw json.error("trailing characters");
    }
    return value;
  }

  /** The object's member {@code name} if it is a string, else null. */
  static @Nullable String string(Map<?, ?> object, String name) {
    Object value = object.get(name);
    return value instanceof String string ? string : null;
  }

  /** {@code value} as a JSON string, quotes included (RFC 8259 section 7). */
  static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private Object value() {
    if (pos >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(pos);
    return switch (c) {
      case '{' -> nested(true);
      case '[' -> nested(false);
      case '"' -> string();
      case 't' -> literal("true", true);
      case 'f' -> literal("false", false);
      case 'n' -> literal("null", NULL);
      default -> number();
    };
  }

  private Object nested(boolean isObject) {
    if (++depth > MAX_DEPTH) {
      throw error("nested deeper than " + MAX_DEPTH);
    }
    Object value = isObject ? object() : array();
    depth--;
    return value;
  }

  private Map<String, Object> object() {
    Map<String, Object> members = new LinkedHashMap<>();
    pos++;
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return members;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      String name = string();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      members.put(name, value());
      skipWhitespace();
      if (peek() == ',') {
        pos++;
      } else {
        expect('}');
        return members;
      }
    }
  }

  private List<Object> array() {
    List<Object> items = new ArrayList<>();
    pos++;
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return items;
    }
    while (true) {
      skipWhitespace();
      items.add(value());
      skipWhitespace();
      if (peek() == ',') {
        pos++;
      } else {
        expect(']');
        return items;
      }
    }
  }

  private String string() {
    pos++;
    StringBuilder out = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        throw error("control character in string");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (pos >= text.length()) {
        throw error("unterminated escape");
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append(unicodeEscape());
          pos += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private char unicodeEscape() {
    if (pos + 4 > text.length()) {
      throw error("short unicode escape");
    }
    try {
      return (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
    } catch (NumberFormatException bad) {
      throw error("bad unicode escape");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error("expected " + word);
    }
    pos += word.length();
    return value;
  }

  private Object number() {
    int start = pos;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
    String digits = text.substring(start, pos);
    if (digits.isEmpty()) {
      throw error("unexpected character '" + text.charAt(start) + "'");
    }
    // No answer of the gateway has a number this long; do not hand a megabyte to the regex.
    if (digits.length() > MAX_NUMBER_CHARS) {
      throw error("number longer than " + MAX_NUMBER_CHARS + " characters");
    }
    try {
      if (digits.matches("-?(0|[1-9][0-9]{0,17})")) {
        return Long.parseLong(digits);
      }
      if (digits.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
        return Double.parseDouble(digits);
      }
    } catch (NumberFormatException bad) {
      throw error("bad number " + digits);
    }
    throw error("bad number " + digits);
  }

  private char peek() {
    if (pos >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(pos);
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  private void skipWhitespace() {
    while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
  }
}
