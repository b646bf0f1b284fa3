package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import java.util.List;
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
    KeptTranscript kept =
        kept(
            "one two",
            "{\"text\":\"one two\",\"segments\":[{\"start\":0,\"end\":1.2,\"text\":\" one\"},"
                + "{\"start\":1.2,\"end\":1.3,\"text\":\" \"},"
                + "{\"start\":61.5,\"end\":3725.125,\"text\":\"two\"}]}");

    KeptTranscript srt = Renditions.asAsked(kept, ResponseFormat.SRT);

    assertThat(srt.text())
        .isEqualTo(
            "1\n00:00:00,000 --> 00:00:01,200\none\n\n2\n00:01:01,500 --> 01:02:05,125\ntwo\n\n");
    assertThat(srt.body()).isEqualTo(srt.text());
    assertThat(srt.settingsFingerprint()).isEqualTo(kept.settingsFingerprint());
    assertThat(Renditions.asAsked(kept, ResponseFormat.JSON).body()).isNull();
    assertThat(Renditions.asAsked(kept, ResponseFormat.TEXT).text()).isEqualTo("one two");
    assertThat(Renditions.asAsked(kept, ResponseFormat.VERBOSE_JSON)).isSameAs(kept);
  }

  @Test
  void anAnswerWithoutSegmentsIsOneCueOverTheNote() {
    KeptTranscript kept = kept("all of it", "{\"text\":\"all of it\"}");

    assertThat(Renditions.asAsked(kept, ResponseFormat.VTT).text())
        .isEqualTo("WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nall of it\n\n");
  }

  @Test
  void aTranscriptKeptInItsAskedShapeIsReturnedAsItIs() {
    String document = "1\n00:00:00,000 --> 00:00:01,000\nhi\n\n";
    KeptTranscript subtitles = kept(document, document);
    KeptTranscript plain = kept("hi", null);

    assertThat(Renditions.asAsked(subtitles, ResponseFormat.SRT)).isSameAs(subtitles);
    assertThat(Renditions.asAsked(plain, ResponseFormat.TEXT)).isSameAs(plain);
  }

  private static KeptTranscript kept(String text, @org.jspecify.annotations.Nullable String body) {
    return new KeptTranscript(text, body, "openai", 2500, true, SHA, "b".repeat(64));
  }
}
