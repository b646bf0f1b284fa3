package dev.bolo.server.dedup;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Task;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.engine.VerboseJson;
import dev.bolo.server.work.KeptTranscript;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A finished transcript as {@link RedisDedupStore} keeps it under the work key's result entry and
 * publishes it: a storage format shared by every gateway instance on one Redis, across versions
 * during a rolling upgrade, so its field names are spelled out here.
 *
 * <p>Two forms. The timed form ({@code "form": 2}) keeps the engine's {@link Transcript}: the plain
 * {@code text}, {@code segments} and {@code words} on the note's milliseconds, {@code language},
 * the length the engine found, and the provider's own document ({@code answered}, with its format).
 * The form before it (no {@code form} field) kept {@code text} (the plain text, or the subtitle
 * document of an {@code srt} or {@code vtt} key) and {@code body} (the engine's {@code
 * verbose_json}, or that document); such an entry is read into the transcript that answers every
 * format with the bytes it answered before ({@link #legacy}). A timed entry still carries {@code
 * text} and {@code body} as the form before wrote them, so that an instance of the previous release
 * replays it unchanged while the two run side by side.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record StoredTranscript(
    @JsonProperty("form") @Nullable Integer form,
    @JsonProperty("text") String text,
    @JsonProperty("body") @Nullable String body,
    @JsonProperty("segments") @Nullable List<Timed> segments,
    @JsonProperty("words") @Nullable List<Timed> words,
    @JsonProperty("language") @Nullable String language,
    @JsonProperty("heard_ms") @Nullable Long heardMs,
    @JsonProperty("answered_format") @Nullable ResponseFormat answeredFormat,
    @JsonProperty("answered") @Nullable String answered,
    @JsonProperty("engine") String engine,
    @JsonProperty("duration_ms") long durationMs,
    @JsonProperty("duration_measured") boolean durationMeasured,
    @JsonProperty("audio_sha256") String audioSha256,
    @JsonProperty("settings_fingerprint") String settingsFingerprint,
    @JsonProperty("usage") @Nullable String usage,
    @JsonProperty("model") @Nullable String model) {

  /** The form written now: the engine's timed transcript. */
  static final int TIMED = 2;

  /** A segment ({@code text}) or a word ({@code word}) and its times. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Timed(
      @JsonProperty("start_ms") long startMs,
      @JsonProperty("end_ms") long endMs,
      @JsonProperty("text") @Nullable String text,
      @JsonProperty("word") @Nullable String word) {}

  static StoredTranscript of(KeptTranscript kept) {
    Transcript t = kept.transcript();
    Transcript.Answered answered = t.answered();
    return new StoredTranscript(
        TIMED,
        t.text(),
        bodyBefore(t),
        t.segments().stream().map(s -> new Timed(s.startMs(), s.endMs(), s.text(), null)).toList(),
        t.words().stream().map(w -> new Timed(w.startMs(), w.endMs(), null, w.word())).toList(),
        t.language(),
        t.durationMs().isPresent() ? t.durationMs().getAsLong() : null,
        answered == null ? null : answered.format(),
        answered == null ? null : answered.document(),
        kept.engine(),
        kept.durationMs(),
        kept.durationMeasured(),
        kept.audioSha256(),
        kept.settingsFingerprint(),
        kept.usage(),
        kept.model());
  }

  KeptTranscript transcript() {
    return new KeptTranscript(
        form == null ? legacy(text, body) : timed(),
        engine,
        durationMs,
        durationMeasured,
        audioSha256,
        settingsFingerprint,
        usage,
        model);
  }

  private Transcript timed() {
    return new Transcript(
        text,
        segments == null
            ? List.of()
            : segments.stream()
                .map(s -> new Transcript.Segment(s.startMs(), s.endMs(), orEmpty(s.text())))
                .toList(),
        words == null
            ? List.of()
            : words.stream()
                .map(w -> new Transcript.Word(orEmpty(w.word()), w.startMs(), w.endMs()))
                .toList(),
        language,
        heardMs == null ? OptionalLong.empty() : OptionalLong.of(heardMs),
        answeredFormat == null || answered == null
            ? null
            : new Transcript.Answered(answeredFormat, answered));
  }

  /**
   * The transcript of an entry of the form before the timed one, answering every format as that
   * release did: no body, the plain text; a {@code verbose_json} body, its segments and words, the
   * body itself passed on for {@code verbose_json}; any other body, the subtitle document of the
   * {@code srt} or {@code vtt} key it was kept under, passed on as it is.
   */
  static Transcript legacy(String text, @Nullable String body) {
    if (body == null) {
      return Transcript.plain(text);
    }
    if (body.startsWith("{")) {
      try {
        JsonNode verbose = Renditions.JSON.readTree(body);
        JsonNode duration = verbose.path("duration");
        return VerboseJson.read(
            verbose,
            text,
            duration.isNumber()
                ? OptionalLong.of(Math.round(duration.asDouble() * 1000))
                : OptionalLong.empty(),
            body);
      } catch (IOException e) {
        // Not JSON after all: the release before passed it on as the document it was kept as.
      }
    }
    ResponseFormat format = body.startsWith("WEBVTT") ? ResponseFormat.VTT : ResponseFormat.SRT;
    return new Transcript(
        text,
        List.of(),
        List.of(),
        null,
        OptionalLong.empty(),
        new Transcript.Answered(format, body));
  }

  /** The {@code body} the release before would have kept for {@code t}. */
  private static @Nullable String bodyBefore(Transcript t) {
    Transcript.Answered answered = t.answered();
    if (answered != null) {
      return answered.document();
    }
    return t.isTimed() ? Renditions.verboseJson(t, Task.TRANSCRIBE, false) : null;
  }

  private static String orEmpty(@Nullable String value) {
    return value == null ? "" : value;
  }
}
