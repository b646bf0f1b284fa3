package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.work.KeptTranscript;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class PieceStitchTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String SHA = "a".repeat(64);

  private static Settings asked(ResponseFormat format, String... granularities) {
    return new Settings("openai", "whisper-1", "", "", "0", format, List.of(granularities));
  }

  private static PieceStitch.Heard piece(long start, long end, String text, @Nullable String body) {
    return new PieceStitch.Heard(
        start, end, new KeptTranscript(text, body, "openai", end - start, true, SHA, SHA));
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
    EngineResult.Transcribed note =
        (EngineResult.Transcribed)
            PieceStitch.stitch(
                List.of(
                    piece(0, 10_000, " one ", null),
                    piece(12_000, 20_000, "", null),
                    piece(21_000, 30_000, "two", null)),
                31_000,
                asked(ResponseFormat.JSON));

    assertThat(note.text()).isEqualTo("one two");
    assertThat(note.body()).isNull();
    assertThat(note.reportedDurationMs()).hasValue(31_000);
  }

  @Test
  void wordsAndSegmentsMoveToTheNotesTimeAndSegmentsAreNumberedAnew() throws Exception {
    String first =
        "{\"task\":\"transcribe\",\"language\":\"english\",\"text\":\"a b\","
            + "\"segments\":[{\"id\":0,\"start\":0.5,\"end\":1.0,\"text\":\"a\"},"
            + "{\"id\":1,\"start\":1.5,\"end\":2.0,\"text\":\"b\"}],"
            + "\"words\":[{\"word\":\"a\",\"start\":0.5,\"end\":1.0}]}";
    String second =
        "{\"text\":\"c\",\"segments\":[{\"id\":0,\"start\":0.25,\"end\":1.0,\"text\":\"c\"}],"
            + "\"words\":[{\"word\":\"c\",\"start\":0.25,\"end\":1.0}]}";

    EngineResult.Transcribed note =
        (EngineResult.Transcribed)
            PieceStitch.stitch(
                List.of(piece(0, 3_000, "a b", first), piece(60_000, 62_000, "c", second)),
                62_500,
                asked(ResponseFormat.VERBOSE_JSON, "segment", "word"));

    JsonNode verbose = JSON.readTree(note.body());
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
    EngineResult.Transcribed note =
        (EngineResult.Transcribed)
            PieceStitch.stitch(
                List.of(
                    piece(1_000, 4_000, "first", "{\"text\":\"first\"}"),
                    piece(3_723_000, 3_724_500, "second", "{\"text\":\"second\"}")),
                3_725_000,
                asked(ResponseFormat.SRT));

    assertThat(note.text())
        .isEqualTo(
            "1\n00:00:01,000 --> 00:00:04,000\nfirst\n\n"
                + "2\n01:02:03,000 --> 01:02:04,500\nsecond\n\n");
    assertThat(note.body()).isEqualTo(note.text());
  }

  @Test
  void aPieceAnsweredOutsideJsonFailsTheNoteAsTheProvidersFault() {
    EngineResult result =
        PieceStitch.stitch(
            List.of(piece(0, 1_000, "x", "not json")), 1_000, asked(ResponseFormat.VERBOSE_JSON));

    assertThat(result).isInstanceOf(EngineResult.Failed.class);
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
