package dev.bolo.server.engine.offline;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One stretch of speech between pauses, as the recogniser heard it.
 *
 * @param words the recognised words in order, without silences and noises
 */
record Utterance(List<TimedWord> words) {

  Utterance {
    words = List.copyOf(words);
  }

  /** The words joined by spaces. */
  String text() {
    return words.stream().map(TimedWord::word).collect(Collectors.joining(" "));
  }

  /** The same words, {@code millis} later: a piece's utterance timed against the whole note. */
  Utterance shiftedBy(long millis) {
    return new Utterance(
        words.stream()
            .map(w -> new TimedWord(w.word(), w.startMs() + millis, w.endMs() + millis))
            .toList());
  }

  long startMs() {
    return words.isEmpty() ? 0 : words.getFirst().startMs();
  }

  long endMs() {
    return words.isEmpty() ? 0 : words.getLast().endMs();
  }

  /**
   * A recognised word and when it was spoken, from the start of the note.
   *
   * @param word the spelling, lower case
   * @param startMs start in milliseconds
   * @param endMs end in milliseconds
   */
  record TimedWord(String word, long startMs, long endMs) {}
}
