package dev.bolo.server.engine;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one place a {@link Transcript} becomes bytes and a content type (PROTOCOL.md rule 12): the
 * engine is asked once for the richest answer its model gives, and {@code json}, {@code text},
 * {@code srt}, {@code vtt} and {@code verbose_json} are rendered from that answer here, for every
 * endpoint. The response format therefore leaves the work key wherever the rendering is exact.
 * Stateless.
 *
 * <p>Where it is not: a model whose richest answer is {@code json} (OpenAI's {@code gpt-4o}
 * transcription models, Gemini) has no timings, so {@code srt}, {@code vtt} and {@code
 * verbose_json} are asked of it as before, each its own work, and the provider's document is passed
 * on as it came ({@link Transcript#answered()}). Keys made before this rendering cannot be confused
 * with new ones: a rendered note's key is the key of a {@code verbose_json} (segments) request,
 * whose kept answer always was a {@code verbose_json}; the old keys of {@code json}, {@code text},
 * {@code srt} and {@code vtt} of a timed model are no longer looked up and expire.
 */
public final class Renditions {

  /** The answer's size is bounded by the provider answer limit, not by Jackson's string cap. */
  public static final ObjectMapper JSON =
      new ObjectMapper(
          JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
              .build());

  private Renditions() {}

  /**
   * A transcript as an OpenAI client asked it.
   *
   * @param contentType the answer's {@code Content-Type}
   * @param body the answer's text, sent as UTF-8
   */
  public record Rendition(String contentType, String body) {
    public Rendition {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
    }
  }

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

  /**
   * The OpenAI endpoint's answer in the format {@code asked} names: {@code json} is the text with
   * the provider's {@code usage}; {@code text} the text; {@code srt} and {@code vtt} the provider's
   * own document, else one written from the segments; {@code verbose_json} the provider's own, else
   * one written from the segments and words.
   *
   * @param usage the provider's {@code usage} object as compact JSON, or null
   * @param noteMillis the note's length as the gateway counted it, 0 when unknown: the one cue of a
   *     transcript without segments lasts that long
   */
  public static Rendition openAi(
      Transcript transcript, Settings asked, @Nullable String usage, long noteMillis) {
    return switch (asked.responseFormat()) {
      case JSON -> new Rendition("application/json", json(transcript.text(), usage));
      case TEXT -> new Rendition("text/plain; charset=utf-8", transcript.text());
      case VERBOSE_JSON -> new Rendition("application/json", verboseJson(transcript, asked));
      // SubRip as OpenAI sends it; WebVTT as a browser's <track> needs it.
      case SRT ->
          new Rendition(
              "text/plain; charset=utf-8", subtitles(transcript, ResponseFormat.SRT, noteMillis));
      case VTT ->
          new Rendition(
              "text/vtt; charset=utf-8", subtitles(transcript, ResponseFormat.VTT, noteMillis));
    };
  }

  /**
   * The text of the native answer and of a stream's events in the format {@code asked}: the
   * subtitle document for {@code srt} and {@code vtt}, the plain text otherwise.
   */
  public static String text(Transcript transcript, ResponseFormat asked, long noteMillis) {
    return switch (asked) {
      case JSON, TEXT, VERBOSE_JSON -> transcript.text();
      case SRT, VTT -> subtitles(transcript, asked, noteMillis);
    };
  }

  /** {@code {"text": …}}, with the provider's {@code usage} as OpenAI's own answer carries it. */
  public static String json(String text, @Nullable String usage) {
    ObjectNode body = JSON.createObjectNode().put("text", text);
    if (usage != null) {
      try {
        body.set("usage", JSON.readTree(usage));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a kept usage is always JSON: " + usage, e);
      }
    }
    return body.toString();
  }

  /**
   * The SubRip or WebVTT document: the provider's own when it answered one, else a cue per segment;
   * a transcript without segments is one cue of its text over the whole note ({@code noteMillis},
   * or the length the engine found).
   */
  static String subtitles(Transcript transcript, ResponseFormat format, long noteMillis) {
    Transcript.Answered answered = transcript.answered();
    // Kept under this format's own key (a model without timings): the document is the answer.
    if (answered != null && answered.format() != ResponseFormat.VERBOSE_JSON) {
      return answered.document();
    }
    List<Subtitles.Cue> cues = new ArrayList<>();
    for (Transcript.Segment segment : transcript.segments()) {
      cues.add(new Subtitles.Cue(segment.startMs(), segment.endMs(), segment.text()));
    }
    if (cues.isEmpty() && !transcript.text().isBlank()) {
      long end = noteMillis > 0 ? noteMillis : transcript.durationMs().orElse(0);
      cues.add(new Subtitles.Cue(0, end, transcript.text()));
    }
    return Subtitles.write(cues, format);
  }

  /**
   * OpenAI's {@code verbose_json}: the provider's own when it answered one, else written here.
   * Fields the engine has no value for ({@code tokens}, {@code avg_logprob}, {@code
   * compression_ratio}, {@code no_speech_prob}) carry neutral values so that typed SDKs can still
   * parse the answer; {@code words} is there when the engine timed words or the client asked for
   * them.
   */
  public static String verboseJson(Transcript transcript, Settings asked) {
    return verboseJson(transcript, asked.task(), asked.timestampGranularities().contains("word"));
  }

  /**
   * OpenAI's {@code verbose_json} of {@code transcript} for {@code task}; {@code words} is written
   * when the engine timed words or {@code askedWords}.
   */
  public static String verboseJson(Transcript transcript, Task task, boolean askedWords) {
    Transcript.Answered answered = transcript.answered();
    if (answered != null && answered.format() == ResponseFormat.VERBOSE_JSON) {
      return answered.document();
    }
    ObjectNode root = JSON.createObjectNode();
    root.put(
        "task",
        switch (task) {
          case TRANSCRIBE -> "transcribe";
          case TRANSLATE -> "translate";
        });
    if (transcript.language() != null) {
      root.put("language", transcript.language());
    }
    root.put("duration", seconds(transcript.durationMs().orElse(0)));
    root.put("text", transcript.text());
    ArrayNode segments = root.putArray("segments");
    for (Transcript.Segment timed : transcript.segments()) {
      ObjectNode segment = segments.addObject();
      segment.put("id", segments.size() - 1);
      segment.put("seek", 0);
      segment.put("start", seconds(timed.startMs()));
      segment.put("end", seconds(timed.endMs()));
      segment.put("text", timed.text());
      segment.putArray("tokens");
      segment.put("temperature", 0.0);
      segment.put("avg_logprob", 0.0);
      segment.put("compression_ratio", 1.0);
      segment.put("no_speech_prob", 0.0);
    }
    if (!transcript.words().isEmpty() || askedWords) {
      ArrayNode words = root.putArray("words");
      for (Transcript.Word timed : transcript.words()) {
        ObjectNode word = words.addObject();
        word.put("word", timed.word());
        word.put("start", seconds(timed.startMs()));
        word.put("end", seconds(timed.endMs()));
      }
    }
    return root.toString();
  }

  private static double seconds(long millis) {
    return millis / 1000.0;
  }
}
