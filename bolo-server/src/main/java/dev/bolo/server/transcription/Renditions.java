package dev.bolo.server.transcription;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Subtitles;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One provider call for every format (PROTOCOL.md rule 1): the engine is asked once for the richest
 * answer its model gives, and {@code json}, {@code text}, {@code srt}, {@code vtt} and {@code
 * verbose_json} are rendered from that answer in the gateway. The response format therefore leaves
 * the work key wherever the rendering is exact. Stateless.
 *
 * <p>Where it is not: a model whose richest answer is {@code json} (OpenAI's {@code gpt-4o}
 * transcription models, Gemini) has no timings, so {@code srt}, {@code vtt} and {@code
 * verbose_json} are asked of it as before, each its own work. Keys made before this rendering
 * cannot be confused with new ones: a rendered note's key is the key of a {@code verbose_json}
 * (segments) request, whose kept answer always was the provider's {@code verbose_json}; the old
 * keys of {@code json}, {@code text}, {@code srt} and {@code vtt} are no longer looked up and
 * expire.
 */
public final class Renditions {

  /** The answer's size is bounded by the provider answer limit, not by Jackson's string cap. */
  static final ObjectMapper JSON =
      new ObjectMapper(
          JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
              .build());

  private Renditions() {}

  /**
   * What the engine is asked, and what the work is keyed by, when a client asks {@code asked} of a
   * model whose richest answer is {@code richest}: {@code verbose_json} with segments (and words,
   * when the client asked for words) for every format a {@code verbose_json} model is asked; {@code
   * json} for {@code json} and {@code text} of a model that answers only that; otherwise {@code
   * asked} unchanged.
   */
  public static Settings work(Settings asked, ResponseFormat richest) {
    ResponseFormat format = asked.responseFormat();
    List<String> granularities;
    ResponseFormat work;
    if (richest == ResponseFormat.VERBOSE_JSON) {
      work = ResponseFormat.VERBOSE_JSON;
      granularities =
          format == ResponseFormat.VERBOSE_JSON && asked.timestampGranularities().contains("word")
              ? List.of("segment", "word")
              : List.of("segment");
    } else if (format == ResponseFormat.TEXT) {
      work = ResponseFormat.JSON;
      granularities = List.of();
    } else {
      return asked;
    }
    return new Settings(
        asked.engine(),
        asked.model(),
        asked.language(),
        asked.prompt(),
        asked.temperature(),
        work,
        granularities,
        asked.task());
  }

  /** {@code result} as the client asked it: a transcript rendered, a refusal as it is. */
  static WorkResult asAsked(WorkResult result, ResponseFormat asked) {
    return switch (result) {
      case WorkResult.Success success ->
          new WorkResult.Success(asAsked(success.transcript(), asked));
      case WorkResult.Refused refused -> refused;
    };
  }

  /**
   * The transcript {@code kept} in the shape the client asked: the same fields a note asked in that
   * format alone would have kept ({@code text} the plain text, or the subtitle document; {@code
   * body} the {@code verbose_json} or the document). A transcript kept in the asked shape already
   * (a model without timings, or a key from before rendering) is returned as it is.
   */
  public static KeptTranscript asAsked(KeptTranscript kept, ResponseFormat asked) {
    String body = kept.body();
    if (body == null || !body.startsWith("{") || asked == ResponseFormat.VERBOSE_JSON) {
      return kept;
    }
    return switch (asked) {
      case JSON, TEXT -> withAnswer(kept, kept.text(), null);
      case SRT, VTT -> {
        JsonNode verbose;
        try {
          verbose = JSON.readTree(body);
        } catch (IOException e) {
          // The store holds what an engine answered: not JSON after all, so it is the document.
          yield kept;
        }
        String document = Subtitles.write(cues(verbose, kept.text(), kept.durationMs()), asked);
        yield withAnswer(kept, document, document);
      }
      case VERBOSE_JSON -> throw new AssertionError(asked);
    };
  }

  /**
   * The cues of a {@code verbose_json} answer: one per segment; an answer without segments is one
   * cue of {@code text} over the whole note ({@code durationMs}, or the answer's {@code duration}).
   */
  static List<Subtitles.Cue> cues(JsonNode verbose, String text, long durationMs) {
    List<Subtitles.Cue> cues = new ArrayList<>();
    for (JsonNode segment : verbose.path("segments")) {
      cues.add(
          new Subtitles.Cue(
              millis(segment.path("start")),
              millis(segment.path("end")),
              segment.path("text").asText("")));
    }
    if (cues.isEmpty() && !text.isBlank()) {
      long end = durationMs > 0 ? durationMs : millis(verbose.path("duration"));
      cues.add(new Subtitles.Cue(0, end, text));
    }
    return cues;
  }

  private static long millis(JsonNode seconds) {
    return Math.round(seconds.asDouble() * 1000);
  }

  private static KeptTranscript withAnswer(
      KeptTranscript kept, String text, @Nullable String body) {
    return new KeptTranscript(
        text,
        body,
        kept.engine(),
        kept.durationMs(),
        kept.durationMeasured(),
        kept.audioSha256(),
        kept.settingsFingerprint(),
        kept.usage(),
        kept.model());
  }
}
