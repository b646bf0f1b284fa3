package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Transcript;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PieceStitchTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static Settings asked(ResponseFormat format, String... granularities) {
    return new Settings("openai", "whisper-1", "", "", "0", format, List.of(granularities));
  }

  private static PieceStitch.Heard piece(long start, long end, String text) {
    return new PieceStitch.Heard(start, end, Transcript.plain(text));
  }

  private static PieceStitch.Heard piece(long start, long end, Transcript transcript) {
    return new PieceStitch.Heard(start, end, transcript);
  }

  private static Transcript stitched(EngineResult result) {
    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    return ((EngineResult.Transcribed) result).transcript();
  }

  @Test
  void subtitlesAreAskedOfEachPieceAsVerboseJsonWithSegments() {
    Settings piece = PieceStitch.pieceSettings(asked(ResponseFormat.VTT));

    assertThat(piece.responseFormat()).isEqualTo(ResponseFormat.VERBOSE_JSON);
    assertThat(piece.timestampGranularities()).containsExactly("segment");
    assertThat(PieceStitch.pieceSettings(asked(ResponseFormat.TEXT)))
        .isEqualTo(asked(ResponseFormat.TEXT));
  }

  @Test
  void textsAreJoinedWithSingleSpacesLeavingOutSilentPieces() {
    Transcript note =
        stitched(
            PieceStitch.stitch(
                List.of(
                    piece(0, 10_000, " one "),
                    piece(12_000, 20_000, ""),
                    piece(21_000, 30_000, "two")),
                31_000,
                asked(ResponseFormat.JSON)));

    assertThat(note.text()).isEqualTo("one two");
    assertThat(note.segments()).isEmpty();
    assertThat(note.durationMs()).hasValue(31_000);
  }

  @Test
  void wordsAndSegmentsMoveToTheNotesTimeAndSegmentsAreNumberedAnew() throws Exception {
    Transcript first =
        new Transcript(
            "a b",
            List.of(
                new Transcript.Segment(500, 1_000, "a"), new Transcript.Segment(1_500, 2_000, "b")),
            List.of(new Transcript.Word("a", 500, 1_000)),
            "english",
            OptionalLong.of(3_000),
            null);
    Transcript second =
        new Transcript(
            "c",
            List.of(new Transcript.Segment(250, 1_000, "c")),
            List.of(new Transcript.Word("c", 250, 1_000)),
            null,
            OptionalLong.of(2_000),
            null);
    Settings settings = asked(ResponseFormat.VERBOSE_JSON, "segment", "word");

    Transcript note =
        stitched(
            PieceStitch.stitch(
                List.of(piece(0, 3_000, first), piece(60_000, 62_000, second)), 62_500, settings));

    JsonNode verbose = JSON.readTree(Renditions.verboseJson(note, settings));
    assertThat(verbose.path("duration").asDouble()).isEqualTo(62.5);
    assertThat(verbose.path("language").asText()).isEqualTo("english");
    assertThat(verbose.path("text").asText()).isEqualTo("a b c");
    JsonNode segments = verbose.path("segments");
    assertThat(segments).hasSize(3);
    assertThat(segments.get(2).path("id").asInt()).isEqualTo(2);
    assertThat(segments.get(2).path("start").asDouble()).isEqualTo(60.25);
    assertThat(segments.get(2).path("end").asDouble()).isEqualTo(61.0);
    assertThat(verbose.path("words").get(1).path("start").asDouble()).isEqualTo(60.25);
  }

  @Test
  void aPieceWithoutSegmentsIsOneCueOverThePiece() {
    Settings settings = asked(ResponseFormat.SRT);

    Transcript note =
        stitched(
            PieceStitch.stitch(
                List.of(piece(1_000, 4_000, "first"), piece(3_723_000, 3_724_500, "second")),
                3_725_000,
                settings));

    assertThat(Renditions.openAi(note, settings, null, 3_725_000).body())
        .isEqualTo(
            "1\n00:00:01,000 --> 00:00:04,000\nfirst\n\n"
                + "2\n01:02:03,000 --> 01:02:04,500\nsecond\n\n");
  }

  @Test
  void aPieceThatFollowsAnotherIsPromptedWithTheEndOfItsTextFromAWord() {
    String before = "word ".repeat(200).strip();

    Settings following = PieceStitch.following(asked(ResponseFormat.JSON), before);

    assertThat(following.prompt()).hasSizeLessThanOrEqualTo(PieceStitch.PROMPT_TAIL_CHARS);
    assertThat(following.prompt()).startsWith("word ").endsWith(" word");
    assertThat(before).endsWith(following.prompt());
  }
}
