package dev.bolo.server.engine;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What an engine heard in a note, the one value every engine answers and the gateway keeps: the
 * text, and when each part of it was said where the engine times it. Only {@link Renditions} turns
 * it into a response format's bytes. Immutable.
 *
 * @param text what was said, as plain text; for a provider that answered only a subtitle document
 *     (a model without timings asked {@code srt} or {@code vtt}), that document
 * @param segments the stretches of speech with their times, in order; empty when the engine does
 *     not time them
 * @param words each word with its times, in order; empty when the engine does not time words
 * @param language the language the engine named, as it named it ({@code english}); null when it
 *     named none
 * @param durationMs the note's length as the engine found it: the provider's reported duration, or
 *     the samples the gateway decoded; charged when longer than the container's header said
 *     (PROTOCOL.md rule 8)
 * @param answered the provider's own document, passed on unchanged when the client asks its format
 *     (OpenAI's {@code verbose_json}, with fields the gateway has no value for; a subtitle document
 *     of a model without timings); null when the gateway writes every format from the segments
 */
public record Transcript(
    String text,
    List<Segment> segments,
    List<Word> words,
    @Nullable String language,
    OptionalLong durationMs,
    @Nullable Answered answered) {

  public Transcript {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(durationMs, "durationMs");
    segments = List.copyOf(segments);
    words = List.copyOf(words);
  }

  /** Text without times, of a note whose length the engine did not report. */
  public static Transcript plain(String text) {
    return plain(text, OptionalLong.empty());
  }

  /** Text without times, of a note the engine found {@code durationMs} long. */
  public static Transcript plain(String text, OptionalLong durationMs) {
    return new Transcript(text, List.of(), List.of(), null, durationMs, null);
  }

  /** Whether the engine timed its text: then every format is rendered from this one answer. */
  public boolean isTimed() {
    return !segments.isEmpty();
  }

  /** Approximate heap characters, for bounding the replay cache. */
  public int chars() {
    int chars = text.length() + (answered == null ? 0 : answered.document().length());
    for (Segment segment : segments) {
      chars += 16 + segment.text().length();
    }
    for (Word word : words) {
      chars += 16 + word.word().length();
    }
    return chars;
  }

  /**
   * One stretch of speech.
   *
   * @param startMs where it starts, in milliseconds from the note's start
   * @param endMs where it ends
   * @param text what was said in it, as the engine wrote it (OpenAI's begin with a space)
   */
  public record Segment(long startMs, long endMs, String text) {
    public Segment {
      Objects.requireNonNull(text, "text");
    }

    /** The same segment, {@code millis} later: a piece's segment on its note's time. */
    public Segment shiftedBy(long millis) {
      return new Segment(startMs + millis, endMs + millis, text);
    }
  }

  /**
   * One word and when it was said.
   *
   * @param word the word as the engine wrote it
   * @param startMs where it starts, in milliseconds from the note's start
   * @param endMs where it ends
   */
  public record Word(String word, long startMs, long endMs) {
    public Word {
      Objects.requireNonNull(word, "word");
    }

    /** The same word, {@code millis} later. */
    public Word shiftedBy(long millis) {
      return new Word(word, startMs + millis, endMs + millis);
    }
  }

  /**
   * A document a provider answered, kept as it came.
   *
   * @param format the format it is in: {@code verbose_json}, {@code srt} or {@code vtt}
   * @param document the provider's bytes as text
   */
  public record Answered(ResponseFormat format, String document) {
    public Answered {
      Objects.requireNonNull(format, "format");
      Objects.requireNonNull(document, "document");
      if (format == ResponseFormat.JSON || format == ResponseFormat.TEXT) {
        throw new IllegalArgumentException("json and text are written from the text: " + format);
      }
    }
  }
}
