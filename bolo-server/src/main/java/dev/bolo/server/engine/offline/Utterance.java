package dev.bolo.server.engine.offline;

import dev.bolo.server.engine.Transcript;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * One stretch of speech between pauses, as the recogniser heard it: its text and where it lies in
 * the note, and its words' own times when the recogniser gives them.
 *
 * @param text what was said, words joined by single spaces
 * @param startMs where it starts in the note
 * @param endMs where it ends
 * @param words each word with its own times, in order; empty when the recogniser times only the
 *     utterance (Moonshine), which is why such an engine refuses word timestamps
 */
record Utterance(String text, long startMs, long endMs, List<TimedWord> words) {

  Utterance {
    Objects.requireNonNull(text, "text");
    words = List.copyOf(words);
    if (startMs < 0 || endMs < startMs) {
      throw new IllegalArgumentException("need 0 <= startMs <= endMs: " + startMs + ", " + endMs);
    }
  }

  /** An utterance of timed words: its text, start and end are theirs. */
  Utterance(List<TimedWord> words) {
    this(
        words.stream().map(TimedWord::word).collect(Collectors.joining(" ")),
        words.isEmpty() ? 0 : words.getFirst().startMs(),
        words.isEmpty() ? 0 : words.getLast().endMs(),
        words);
  }

  /**
   * The transcript of a note whose decoded samples last {@code durationMs}: an utterance a segment,
   * timed by the voice-activity detector, and the words the recogniser timed. That length is what
   * the engine reports as the note's, whatever its container's header said, and is what it is
   * charged when longer (PROTOCOL.md rule 8).
   */
  static Transcript transcript(List<Utterance> utterances, long durationMs) {
    return new Transcript(
        utterances.stream().map(Utterance::text).collect(Collectors.joining(" ")),
        utterances.stream()
            .map(u -> new Transcript.Segment(u.startMs(), u.endMs(), u.text()))
            .toList(),
        utterances.stream()
            .flatMap(u -> u.words().stream())
            .map(w -> new Transcript.Word(w.word(), w.startMs(), w.endMs()))
            .toList(),
        "english",
        OptionalLong.of(durationMs),
        null);
  }

  /** An utterance timed as a whole, its words without times of their own. */
  static Utterance untimed(String text, long startMs, long endMs) {
    return new Utterance(text, startMs, endMs, List.of());
  }

  /** The same utterance, {@code millis} later: a piece's utterance timed against the whole note. */
  Utterance shiftedBy(long millis) {
    return new Utterance(
        text,
        startMs + millis,
        endMs + millis,
        words.stream()
            .map(w -> new TimedWord(w.word(), w.startMs() + millis, w.endMs() + millis))
            .toList());
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
