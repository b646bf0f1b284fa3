package dev.bolo.cli;

import java.util.Arrays;
import java.util.Locale;

/** Word error counts for the demo's summary: word-level Levenshtein distance. */
final class WordErrors {

  private WordErrors() {}

  /** {errors, reference words} after lower-casing and dropping punctuation. */
  static int[] count(String reference, String hypothesis) {
    String[] ref = words(reference);
    String[] hyp = words(hypothesis);
    int[] previous = new int[hyp.length + 1];
    int[] current = new int[hyp.length + 1];
    for (int j = 0; j <= hyp.length; j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= ref.length; i++) {
      current[0] = i;
      for (int j = 1; j <= hyp.length; j++) {
        int substitution = previous[j - 1] + (ref[i - 1].equals(hyp[j - 1]) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return new int[] {previous[hyp.length], ref.length};
  }

  private static String[] words(String text) {
    String cleaned = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9' ]", " ").trim();
    return cleaned.isEmpty()
        ? new String[0]
        : Arrays.stream(cleaned.split("\\s+")).toArray(String[]::new);
  }
}
