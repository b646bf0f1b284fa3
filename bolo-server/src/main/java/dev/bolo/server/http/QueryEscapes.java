package dev.bolo.server.http;

import org.jspecify.annotations.Nullable;

/**
 * Checks a query string's percent-escapes before its parameters are read: Jetty drops a parameter
 * whose escape is malformed ({@code language=de%zz}) without a word, so a note would be looked up
 * or transcribed with a setting other than the one the phone asked for.
 */
final class QueryEscapes {

  private QueryEscapes() {}

  /**
   * @param rawQuery the query as it arrived, undecoded; null when there is none
   * @throws MalformedParameterException naming the parameter whose escape is malformed
   */
  static void check(@Nullable String rawQuery) {
    if (rawQuery == null) {
      return;
    }
    for (int i = 0; i < rawQuery.length(); i++) {
      if (rawQuery.charAt(i) != '%') {
        continue;
      }
      if (i + 2 >= rawQuery.length()
          || Character.digit(rawQuery.charAt(i + 1), 16) < 0
          || Character.digit(rawQuery.charAt(i + 2), 16) < 0) {
        int start = rawQuery.lastIndexOf('&', i) + 1;
        int equals = rawQuery.indexOf('=', start);
        String name = equals >= 0 && equals < i ? rawQuery.substring(start, equals) : "query";
        throw new MalformedParameterException(
            name, name + " has a malformed percent-escape: %XX with two hex digits is expected");
      }
      i += 2;
    }
  }
}
