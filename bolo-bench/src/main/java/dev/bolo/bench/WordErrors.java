package dev.bolo.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Word-level Levenshtein distance, the numerator of the word error rate. */
final class WordErrors {

  private WordErrors() {}

  static List<String> words(String text) {
    String cleaned = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9' ]+", " ").trim();
    return cleaned.isEmpty() ? List.of() : Arrays.asList(cleaned.split("\\s+"));
  }

  /** Substitutions + deletions + insertions turning reference into hypothesis. */
  static int count(List<String> reference, List<String> hypothesis) {
    int[] previous = new int[hypothesis.size() + 1];
    int[] current = new int[hypothesis.size() + 1];
    for (int j = 0; j <= hypothesis.size(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= reference.size(); i++) {
      current[0] = i;
      for (int j = 1; j <= hypothesis.size(); j++) {
        int same = reference.get(i - 1).equals(hypothesis.get(j - 1)) ? 0 : 1;
        current[j] = Math.min(previous[j - 1] + same, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[hypothesis.size()];
  }
}
