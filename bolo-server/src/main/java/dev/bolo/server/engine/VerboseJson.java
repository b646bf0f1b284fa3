package dev.bolo.server.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads OpenAI's {@code verbose_json} into a {@link Transcript}: its segments and words (times in
 * seconds) on the note's milliseconds, its language, and the document itself, which a client that
 * asks {@code verbose_json} gets as the provider wrote it. Stateless.
 */
public final class VerboseJson {

  private VerboseJson() {}

  /**
   * The transcript of {@code answer}, whose document is {@code document}.
   *
   * @param text the answer's text, as the engine reads it
   * @param durationMs the length the answer reports, when the engine believes it
   */
  public static Transcript read(
      JsonNode answer, String text, OptionalLong durationMs, String document) {
    List<Transcript.Segment> segments = new ArrayList<>();
    for (JsonNode segment : answer.path("segments")) {
      segments.add(
          new Transcript.Segment(
              millis(segment.path("start")),
              millis(segment.path("end")),
              segment.path("text").asText("")));
    }
    List<Transcript.Word> words = new ArrayList<>();
    for (JsonNode word : answer.path("words")) {
      words.add(
          new Transcript.Word(
              word.path("word").asText(""), millis(word.path("start")), millis(word.path("end"))));
    }
    JsonNode language = answer.path("language");
    return new Transcript(
        text,
        segments,
        words,
        language.isTextual() ? language.asText() : null,
        durationMs,
        new Transcript.Answered(ResponseFormat.VERBOSE_JSON, document));
  }

  /** Seconds as OpenAI writes them, to the nearest millisecond. */
  private static long millis(JsonNode seconds) {
    return Math.round(seconds.asDouble() * 1000);
  }
}
