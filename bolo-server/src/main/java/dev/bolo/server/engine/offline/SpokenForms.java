package dev.bolo.server.engine.offline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes a transcript's words the way a reference transcript spells them, so that word error rates
 * count what was heard, not how it was written: numerals become words ("4" → "four", "1890" →
 * "eighteen ninety", "21st" → "twenty first"), abbreviated titles are spelled out ("mr" →
 * "mister"), "%" and "&" become "percent" and "and". Reads words already lower-cased and split on
 * hyphens. Stateless.
 */
final class SpokenForms {

  private static final String[] ONES = {
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen"
  };
  private static final String[] TENS = {
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"
  };
  private static final Map<String, String> ORDINALS =
      Map.of(
          "one", "first", "two", "second", "three", "third", "five", "fifth", "eight", "eighth",
          "nine", "ninth", "twelve", "twelfth");

  private static final Map<String, String> TITLES =
      Map.of(
          "mr", "mister", "mrs", "missus", "dr", "doctor", "st", "saint", "%", "percent", "&",
          "and");

  private static final java.util.Set<String> JOINED_AFTER_TO =
      java.util.Set.of("day", "morrow", "night");

  private SpokenForms() {}

  /** The words, with numerals, titles and signs spelled out. */
  static List<String> spelled(List<String> words) {
    List<String> out = new ArrayList<>(words.size());
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word.equals("to") && i + 1 < words.size() && JOINED_AFTER_TO.contains(words.get(i + 1))) {
        out.add("to" + words.get(++i));
        continue;
      }
      String title = TITLES.get(word);
      if (title != null) {
        out.add(title);
      } else if (word.matches("\\d{1,3}(_\\d{3})+")) {
        out.addAll(List.of(number(Long.parseLong(word.replace("_", "")), false).split(" ")));
      } else if (word.matches("\\d{1,9}")) {
        out.addAll(List.of(number(Long.parseLong(word), word.length() == 4).split(" ")));
      } else if (word.matches("\\d{1,9}(st|nd|rd|th)")) {
        List<String> spoken =
            new ArrayList<>(
                List.of(number(Long.parseLong(word.replaceAll("\\D", "")), false).split(" ")));
        spoken.set(spoken.size() - 1, ordinal(spoken.getLast()));
        out.addAll(spoken);
      } else {
        out.add(word);
      }
    }
    return out;
  }

  /** A whole number in words; four digits from 1100 to 9999 read as a year when they can be. */
  static String number(long n, boolean fourDigits) {
    if (fourDigits && n >= 1100 && n <= 9999 && n % 100 != 0 && n % 1000 >= 10) {
      return number(n / 100, false) + " " + (n % 100 < 10 ? "oh " : "") + number(n % 100, false);
    }
    if (n < 20) {
      return ONES[(int) n];
    }
    if (n < 100) {
      return TENS[(int) (n / 10)] + (n % 10 == 0 ? "" : " " + ONES[(int) (n % 10)]);
    }
    if (n < 1000) {
      return ONES[(int) (n / 100)] + " hundred" + rest(n % 100);
    }
    if (n < 1_000_000) {
      return number(n / 1000, false) + " thousand" + rest(n % 1000);
    }
    return number(n / 1_000_000, false) + " million" + rest(n % 1_000_000);
  }

  private static String rest(long n) {
    return n == 0 ? "" : " " + number(n, false);
  }

  private static String ordinal(String cardinal) {
    String irregular = ORDINALS.get(cardinal);
    if (irregular != null) {
      return irregular;
    }
    return cardinal.endsWith("y")
        ? cardinal.substring(0, cardinal.length() - 1) + "ieth"
        : cardinal + "th";
  }
}
