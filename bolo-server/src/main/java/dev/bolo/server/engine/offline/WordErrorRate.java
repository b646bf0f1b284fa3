package dev.bolo.server.engine.offline;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Word error rate: the word-level Levenshtein distance (substitutions + deletions + insertions)
 * between a reference and a hypothesis, divided by the reference's word count. Words are compared
 * in lower case with punctuation other than apostrophes removed (a hyphen splits words), and
 * numerals, titles and signs spelled out as a reference spells them ({@link SpokenForms}: "Mr." is
 * "mister", "4" is "four").
 */
public final class WordErrorRate {

  private WordErrorRate() {}

  /** The words of {@code text}, normalised for comparison. */
  public static List<String> words(String text) {
    String cleaned =
        text.toLowerCase(Locale.ROOT)
            .replaceAll("(?<=\\d),(?=\\d{3})", "_")
            .replaceAll("([%&])", " $1 ")
            .replaceAll("[^a-z0-9'%&_ ]+", " ")
            .trim();
    return cleaned.isEmpty()
        ? List.of()
        : SpokenForms.spelled(Arrays.asList(cleaned.split("\\s+")));
  }

  /** The fewest substitutions, deletions and insertions that turn reference into hypothesis. */
  public static int errors(List<String> reference, List<String> hypothesis) {
    int[] previous = new int[hypothesis.size() + 1];
    int[] current = new int[hypothesis.size() + 1];
    for (int j = 0; j <= hypothesis.size(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= reference.size(); i++) {
      current[0] = i;
      for (int j = 1; j <= hypothesis.size(); j++) {
        int substitution =
            previous[j - 1] + (reference.get(i - 1).equals(hypothesis.get(j - 1)) ? 0 : 1);
        int deletion = previous[j] + 1;
        int insertion = current[j - 1] + 1;
        current[j] = Math.min(substitution, Math.min(deletion, insertion));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[hypothesis.size()];
  }

  /** Errors over reference words for one pair of texts. */
  public static double of(String reference, String hypothesis) {
    List<String> expected = words(reference);
    if (expected.isEmpty()) {
      throw new IllegalArgumentException("reference has no words: " + reference);
    }
    return (double) errors(expected, words(hypothesis)) / expected.size();
  }
}
