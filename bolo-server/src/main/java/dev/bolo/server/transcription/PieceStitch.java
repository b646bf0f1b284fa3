package dev.bolo.server.transcription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Subtitles;
import dev.bolo.server.work.KeptTranscript;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * Joins the pieces of a note into the answer the client asked for, as if the note had been sent
 * whole: the texts joined with single spaces; for {@code verbose_json}, {@code srt} and {@code vtt}
 * the pieces are asked in {@code verbose_json} and their segments (and words) moved to the note's
 * time and numbered anew, the duration the note's. Stateless.
 */
final class PieceStitch {

  private static final ObjectMapper JSON = Renditions.JSON;

  /**
   * How much of the text before a piece goes into its prompt: about 150 tokens, within the 224 that
   * Whisper reads of a prompt.
   */
  static final int PROMPT_TAIL_CHARS = 600;

  /**
   * One piece's transcript and where the piece lies in its note.
   *
   * @param startMillis where the piece starts in the note
   * @param endMillis where it ends
   */
  record Heard(long startMillis, long endMillis, KeptTranscript transcript) {}

  private PieceStitch() {}

  /**
   * What each piece is asked: the note's own settings, but {@code verbose_json} with segments for
   * subtitles, which are then written from the re-timed segments.
   */
  static Settings pieceSettings(Settings note) {
    boolean subtitles =
        switch (note.responseFormat()) {
          case JSON, TEXT, VERBOSE_JSON -> false;
          case SRT, VTT -> true;
        };
    if (!subtitles) {
      return note;
    }
    return new Settings(
        note.engine(),
        note.model(),
        note.language(),
        note.prompt(),
        note.temperature(),
        ResponseFormat.VERBOSE_JSON,
        List.of("segment"),
        note.task());
  }

  /**
   * The settings of a piece that follows {@code textBefore}: the client's prompt, then the end of
   * that text, at most {@link #PROMPT_TAIL_CHARS} of it and starting at a word, within the longest
   * prompt a client may send.
   */
  static Settings following(Settings piece, String textBefore) {
    String before = textBefore.strip();
    int room = Math.min(PROMPT_TAIL_CHARS, Settings.MAX_PROMPT_CHARS - piece.prompt().length() - 1);
    if (room <= 0 || before.isEmpty()) {
      return piece;
    }
    String tail = before.substring(Math.max(0, before.length() - room));
    int word = tail.indexOf(' ');
    if (before.length() > room && word >= 0) {
      tail = tail.substring(word + 1);
    }
    String prompt = piece.prompt().isEmpty() ? tail : piece.prompt() + " " + tail;
    return new Settings(
        piece.engine(),
        piece.model(),
        piece.language(),
        prompt,
        piece.temperature(),
        piece.responseFormat(),
        piece.timestampGranularities(),
        piece.task());
  }

  /** The note's answer from its pieces, in order; a piece's answer that lacks its body fails it. */
  static EngineResult stitch(List<Heard> pieces, long noteMillis, Settings settings) {
    String text =
        pieces.stream()
            .map(piece -> piece.transcript().text().strip())
            .filter(piece -> !piece.isEmpty())
            .collect(Collectors.joining(" "));
    OptionalLong duration = OptionalLong.of(noteMillis);
    ResponseFormat format = settings.responseFormat();
    if (format == ResponseFormat.JSON || format == ResponseFormat.TEXT) {
      return new EngineResult.Transcribed(text, null, duration);
    }
    ObjectNode note = JSON.createObjectNode();
    ArrayNode segments = JSON.createArrayNode();
    ArrayNode words = JSON.createArrayNode();
    for (Heard piece : pieces) {
      JsonNode answer;
      try {
        String body = piece.transcript().body();
        answer = body == null ? JSON.createObjectNode() : JSON.readTree(body);
      } catch (IOException e) {
        return new EngineResult.Failed("the provider's answer to a piece is not verbose_json");
      }
      note.putIfAbsent("task", answer.get("task"));
      note.putIfAbsent("language", answer.get("language"));
      double offset = piece.startMillis() / 1000.0;
      JsonNode pieceSegments = answer.path("segments");
      if (pieceSegments.isArray() && !pieceSegments.isEmpty()) {
        for (JsonNode segment : pieceSegments) {
          ObjectNode moved = retimed(segment, offset);
          moved.put("id", segments.size());
          segments.add(moved);
        }
      } else if (!piece.transcript().text().isBlank()) {
        // A provider that gives no segments: the piece is one segment, timed by the gateway.
        ObjectNode whole = segments.addObject();
        whole.put("id", segments.size() - 1);
        whole.put("start", offset);
        whole.put("end", piece.endMillis() / 1000.0);
        whole.put("text", piece.transcript().text().strip());
      }
      for (JsonNode word : answer.path("words")) {
        words.add(retimed(word, offset));
      }
    }
    return switch (format) {
      case JSON, TEXT -> throw new AssertionError(format);
      case VERBOSE_JSON -> {
        note.put("duration", noteMillis / 1000.0);
        note.put("text", text);
        if (settings.timestampGranularities().contains("segment") || !segments.isEmpty()) {
          note.set("segments", segments);
        }
        if (!words.isEmpty()) {
          note.set("words", words);
        }
        yield new EngineResult.Transcribed(text, note.toString(), duration);
      }
      case SRT, VTT -> {
        String document =
            Subtitles.write(
                Renditions.cues(
                    JSON.createObjectNode().set("segments", segments), text, noteMillis),
                format);
        yield new EngineResult.Transcribed(document, document, duration);
      }
    };
  }

  /** A copy of a timed node ({@code start}, {@code end} in seconds) moved by {@code offset}. */
  private static ObjectNode retimed(JsonNode timed, double offset) {
    ObjectNode moved = timed.isObject() ? ((ObjectNode) timed).deepCopy() : JSON.createObjectNode();
    moved.put("start", offset + timed.path("start").asDouble());
    moved.put("end", offset + timed.path("end").asDouble());
    return moved;
  }
}
