package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.work.KeptTranscript;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The two forms of a kept transcript in Redis: entries the release before wrote ({@code text} and
 * {@code body}, no {@code form}) answer every format with the bytes that release answered, and the
 * timed form round-trips and still carries the fields that release reads.
 */
class StoredTranscriptTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String SHA = "a".repeat(64);

  private static Settings asked(ResponseFormat format) {
    return new Settings("openai", "whisper-1", "", "", "0", format, List.of());
  }

  /** An entry as the release before wrote it. */
  private static KeptTranscript before(String text, @Nullable String body) {
    String entry =
        "{\"text\":"
            + JSON.valueToTree(text)
            + (body == null ? "" : ",\"body\":" + JSON.valueToTree(body))
            + ",\"engine\":\"openai\",\"duration_ms\":2500,\"duration_measured\":true,"
            + "\"audio_sha256\":\""
            + SHA
            + "\",\"settings_fingerprint\":\""
            + SHA
            + "\"}";
    return RedisValues.read(entry, StoredTranscript.class).transcript();
  }

  private static String openAi(KeptTranscript kept, ResponseFormat format) {
    return Renditions.openAi(kept.transcript(), asked(format), kept.usage(), kept.durationMs())
        .body();
  }

  @Test
  void anOldVerboseJsonEntryAnswersEveryFormatAsTheReleaseBeforeDid() {
    String verbose =
        "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":2.5,\"text\":\"one two\","
            + "\"segments\":[{\"id\":0,\"seek\":0,\"start\":0.0,\"end\":1.2,\"text\":\" one\","
            + "\"avg_logprob\":-0.31},{\"id\":1,\"start\":1.5,\"end\":2.5,\"text\":\" two\"}]}";

    KeptTranscript kept = before("one two", verbose);

    assertThat(openAi(kept, ResponseFormat.VERBOSE_JSON)).isEqualTo(verbose);
    assertThat(openAi(kept, ResponseFormat.JSON)).isEqualTo("{\"text\":\"one two\"}");
    assertThat(openAi(kept, ResponseFormat.TEXT)).isEqualTo("one two");
    assertThat(openAi(kept, ResponseFormat.SRT))
        .isEqualTo(
            "1\n00:00:00,000 --> 00:00:01,200\none\n\n2\n00:00:01,500 --> 00:00:02,500\ntwo\n\n");
  }

  @Test
  void anOldSubtitleEntryIsPassedOnAsItWasKept() {
    String srt = "1\n00:00:00,000 --> 00:00:02,500\nkept as a document\n\n";

    KeptTranscript kept = before(srt, srt);

    assertThat(openAi(kept, ResponseFormat.SRT)).isEqualTo(srt);
    assertThat(Renditions.text(kept.transcript(), ResponseFormat.SRT, kept.durationMs()))
        .isEqualTo(srt);
  }

  @Test
  void anOldPlainEntryIsItsText() {
    KeptTranscript kept = before("just text", null);

    assertThat(kept.transcript()).isEqualTo(Transcript.plain("just text"));
    assertThat(openAi(kept, ResponseFormat.JSON)).isEqualTo("{\"text\":\"just text\"}");
  }

  @Test
  void aTimedEntryRoundTripsAndCarriesTheFieldsTheReleaseBeforeReads() throws Exception {
    KeptTranscript kept =
        new KeptTranscript(
            new Transcript(
                "call me",
                List.of(new Transcript.Segment(120, 1_020, "call me")),
                List.of(new Transcript.Word("call", 120, 500)),
                "english",
                OptionalLong.of(2_000),
                null),
            "offline",
            2_000,
            true,
            SHA,
            SHA,
            null,
            "moonshine-tiny-en");

    String entry = RedisValues.write(StoredTranscript.of(kept));

    assertThat(RedisValues.read(entry, StoredTranscript.class).transcript()).isEqualTo(kept);
    JsonNode stored = JSON.readTree(entry);
    assertThat(stored.path("form").asInt()).isEqualTo(StoredTranscript.TIMED);
    assertThat(stored.path("text").asText()).isEqualTo("call me");
    JsonNode body = JSON.readTree(stored.path("body").asText());
    assertThat(body.path("segments").get(0).path("start").asDouble()).isEqualTo(0.12);
    assertThat(body.path("text").asText()).isEqualTo("call me");
  }
}
