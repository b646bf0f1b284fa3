package dev.bolo.server.transcription;

import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Transcript;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * Joins the timed transcripts of a note's pieces into the note's, as if the note had been sent
 * whole: the texts joined with single spaces, the segments and words moved to the note's time, the
 * length the note's; every format is then rendered from it by {@link
 * dev.bolo.server.engine.Renditions}. For {@code srt} and {@code vtt} of a model that answers them
 * only as documents, the pieces are asked in {@code verbose_json}. Stateless.
 */
final class PieceStitch {

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
  record Heard(long startMillis, long endMillis, Transcript transcript) {}

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

  /**
   * The note's transcript from its pieces, in order: their texts joined, their segments and words
   * moved to the note's time; a piece without segments is one segment over the piece when the note
   * asked for timings.
   */
  static EngineResult stitch(List<Heard> pieces, long noteMillis, Settings settings) {
    String text =
        pieces.stream()
            .map(piece -> piece.transcript().text().strip())
            .filter(piece -> !piece.isEmpty())
            .collect(Collectors.joining(" "));
    boolean timed =
        switch (settings.responseFormat()) {
          case JSON, TEXT -> false;
          case VERBOSE_JSON, SRT, VTT -> true;
        };
    List<Transcript.Segment> segments = new ArrayList<>();
    List<Transcript.Word> words = new ArrayList<>();
    String language = null;
    for (Heard piece : pieces) {
      Transcript heard = piece.transcript();
      if (language == null) {
        language = heard.language();
      }
      long offset = piece.startMillis();
      if (heard.isTimed()) {
        heard.segments().forEach(segment -> segments.add(segment.shiftedBy(offset)));
      } else if (timed && !heard.text().isBlank()) {
        // A provider that gives no segments: the piece is one segment, timed by the gateway.
        segments.add(new Transcript.Segment(offset, piece.endMillis(), heard.text().strip()));
      }
      heard.words().forEach(word -> words.add(word.shiftedBy(offset)));
    }
    return new EngineResult.Transcribed(
        new Transcript(text, segments, words, language, OptionalLong.of(noteMillis), null));
  }
}
