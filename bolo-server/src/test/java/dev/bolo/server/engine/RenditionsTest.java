package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.work.WorkKey;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What the engine is asked for each format, and the renderings of its one answer. */
class RenditionsTest {

  private static final String SHA = "a".repeat(64);

  private static Settings asked(ResponseFormat format, String... granularities) {
    return new Settings("openai", "whisper-1", "en", "", "0", format, List.of(granularities));
  }

  @Test
  void everyFormatOfATimedModelIsOneWorkButWordsAreTheirOwn() {
    List<String> keys =
        List.of(
                asked(ResponseFormat.JSON),
                asked(ResponseFormat.TEXT),
                asked(ResponseFormat.SRT),
                asked(ResponseFormat.VTT),
                asked(ResponseFormat.VERBOSE_JSON, "segment"))
            .stream()
            .map(s -> Renditions.work(s, ResponseFormat.VERBOSE_JSON))
            .map(s -> WorkKey.of("alpha", s, SHA).asString())
            .distinct()
            .toList();
    assertThat(keys).hasSize(1);
    Settings words =
        Renditions.work(asked(ResponseFormat.VERBOSE_JSON, "word"), ResponseFormat.VERBOSE_JSON);
    assertThat(words.timestampGranularities()).containsExactly("segment", "word");
    assertThat(WorkKey.of("alpha", words, SHA).asString()).isNotEqualTo(keys.getFirst());
  }

  @Test
  void aModelWithoutTimingsSharesJsonAndTextOnlyAndIsAskedSubtitlesAsBefore() {
    Settings text = Renditions.work(asked(ResponseFormat.TEXT), ResponseFormat.JSON);
    assertThat(text.responseFormat()).isEqualTo(ResponseFormat.JSON);
    assertThat(text).isEqualTo(Renditions.work(asked(ResponseFormat.JSON), ResponseFormat.JSON));
    assertThat(Renditions.work(asked(ResponseFormat.SRT), ResponseFormat.JSON))
        .isEqualTo(asked(ResponseFormat.SRT));
  }

  @Test
  void subtitlesAreWrittenFromSegmentsAndEmptySegmentsAreLeftOut() {
    Transcript timed =
        new Transcript(
            "one two",
            List.of(
                new Transcript.Segment(0, 1_200, " one"),
                new Transcript.Segment(1_200, 1_300, " "),
                new Transcript.Segment(61_500, 3_725_125, "two")),
            List.of(),
            null,
            OptionalLong.of(3_725_125),
            null);

    Renditions.Rendition srt = Renditions.openAi(timed, asked(ResponseFormat.SRT), null, 2500);

    assertThat(srt.body())
        .isEqualTo(
            "1\n00:00:00,000 --> 00:00:01,200\none\n\n2\n00:01:01,500 --> 01:02:05,125\ntwo\n\n");
    assertThat(srt.contentType()).isEqualTo("text/plain; charset=utf-8");
    assertThat(Renditions.text(timed, ResponseFormat.SRT, 2500)).isEqualTo(srt.body());
    assertThat(Renditions.openAi(timed, asked(ResponseFormat.JSON), null, 2500).body())
        .isEqualTo("{\"text\":\"one two\"}");
    assertThat(Renditions.openAi(timed, asked(ResponseFormat.TEXT), null, 2500).body())
        .isEqualTo("one two");
    assertThat(Renditions.text(timed, ResponseFormat.VERBOSE_JSON, 2500)).isEqualTo("one two");
  }

  @Test
  void anAnswerWithoutSegmentsIsOneCueOverTheNote() {
    Transcript plain = Transcript.plain("all of it");

    Renditions.Rendition vtt = Renditions.openAi(plain, asked(ResponseFormat.VTT), null, 2500);

    assertThat(vtt.body()).isEqualTo("WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nall of it\n\n");
    assertThat(vtt.contentType()).isEqualTo("text/vtt; charset=utf-8");
  }

  @Test
  void aProvidersOwnDocumentIsPassedOnForItsFormat() {
    String verbose = "{\"text\":\"hi\",\"segments\":[],\"avg_logprob\":-0.25}";
    String document = "1\n00:00:00,000 --> 00:00:01,000\nhi\n\n";
    Transcript answeredVerbose =
        new Transcript(
            "hi",
            List.of(new Transcript.Segment(0, 1_000, "hi")),
            List.of(),
            null,
            OptionalLong.empty(),
            new Transcript.Answered(ResponseFormat.VERBOSE_JSON, verbose));
    Transcript answeredSrt =
        new Transcript(
            document,
            List.of(),
            List.of(),
            null,
            OptionalLong.empty(),
            new Transcript.Answered(ResponseFormat.SRT, document));

    assertThat(Renditions.verboseJson(answeredVerbose, asked(ResponseFormat.VERBOSE_JSON)))
        .isEqualTo(verbose);
    assertThat(Renditions.openAi(answeredSrt, asked(ResponseFormat.SRT), null, 0).body())
        .isEqualTo(document);
  }

  @Test
  void theGatewaysVerboseJsonCarriesNeutralValuesForWhatTheEngineDidNotSay() {
    Transcript timed =
        new Transcript(
            "call me",
            List.of(new Transcript.Segment(120, 1_020, "call me")),
            List.of(),
            "english",
            OptionalLong.of(2_000),
            null);

    assertThat(Renditions.verboseJson(timed, asked(ResponseFormat.VERBOSE_JSON, "segment")))
        .isEqualTo(
            "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":2.0,"
                + "\"text\":\"call me\",\"segments\":[{\"id\":0,\"seek\":0,\"start\":0.12,"
                + "\"end\":1.02,\"text\":\"call me\",\"tokens\":[],\"temperature\":0.0,"
                + "\"avg_logprob\":0.0,\"compression_ratio\":1.0,\"no_speech_prob\":0.0}]}");
    assertThat(
            Renditions.openAi(
                    timed,
                    asked(ResponseFormat.JSON),
                    "{\"type\":\"duration\",\"seconds\":2}",
                    2000)
                .body())
        .isEqualTo("{\"text\":\"call me\",\"usage\":{\"type\":\"duration\",\"seconds\":2}}");
  }
}
