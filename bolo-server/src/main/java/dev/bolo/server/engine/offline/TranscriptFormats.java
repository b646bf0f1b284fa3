package dev.bolo.server.engine.offline;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Subtitles;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * Shapes recognised utterances into OpenAI's transcription response formats. Each utterance (speech
 * between pauses) is one segment or subtitle cue, timed by the voice-activity detector. Stateless
 * and thread safe.
 */
final class TranscriptFormats {

  private static final ObjectMapper JSON = new ObjectMapper();

  private TranscriptFormats() {}

  /**
   * The transcript of a note whose decoded samples last {@code durationMs}: that length is what the
   * engine reports as the note's, whatever its container's header said, and is what it is charged
   * when longer (PROTOCOL.md rule 8).
   */
  static EngineResult.Transcribed format(
      List<Utterance> utterances, long durationMs, ResponseFormat format, Settings settings) {
    String text = utterances.stream().map(Utterance::text).collect(Collectors.joining(" "));
    OptionalLong decoded = OptionalLong.of(durationMs);
    return switch (format) {
      case JSON, TEXT -> new EngineResult.Transcribed(text, null, decoded);
      case VERBOSE_JSON ->
          new EngineResult.Transcribed(
              text,
              verboseJson(utterances, text, durationMs, settings.timestampGranularities()),
              decoded);
      case SRT, VTT -> subtitles(utterances, format, decoded);
    };
  }

  /**
   * OpenAI's {@code verbose_json}. Fields the recogniser has no value for ({@code tokens}, {@code
   * avg_logprob}, {@code compression_ratio}, {@code no_speech_prob}) carry neutral values so that
   * typed SDKs can still parse the answer.
   */
  private static String verboseJson(
      List<Utterance> utterances, String text, long durationMs, List<String> granularities) {
    ObjectNode root = JSON.createObjectNode();
    root.put("task", "transcribe");
    root.put("language", "english");
    root.put("duration", seconds(durationMs));
    root.put("text", text);
    if (granularities.contains("segment")) {
      ArrayNode segments = root.putArray("segments");
      for (int i = 0; i < utterances.size(); i++) {
        Utterance utterance = utterances.get(i);
        ObjectNode segment = segments.addObject();
        segment.put("id", i);
        segment.put("seek", 0);
        segment.put("start", seconds(utterance.startMs()));
        segment.put("end", seconds(utterance.endMs()));
        segment.put("text", utterance.text());
        segment.putArray("tokens");
        segment.put("temperature", 0.0);
        segment.put("avg_logprob", 0.0);
        segment.put("compression_ratio", 1.0);
        segment.put("no_speech_prob", 0.0);
      }
    }
    if (granularities.contains("word")) {
      ArrayNode words = root.putArray("words");
      for (Utterance utterance : utterances) {
        for (Utterance.TimedWord word : utterance.words()) {
          ObjectNode node = words.addObject();
          node.put("word", word.word());
          node.put("start", seconds(word.startMs()));
          node.put("end", seconds(word.endMs()));
        }
      }
    }
    return root.toString();
  }

  /** SubRip or WebVTT, a cue per utterance; the document is both the text and the body. */
  private static EngineResult.Transcribed subtitles(
      List<Utterance> utterances, ResponseFormat format, OptionalLong decoded) {
    String body =
        Subtitles.write(
            utterances.stream()
                .map(u -> new Subtitles.Cue(u.startMs(), u.endMs(), u.text()))
                .toList(),
            format);
    return new EngineResult.Transcribed(body, body, decoded);
  }

  private static double seconds(long millis) {
    return millis / 1000.0;
  }
}
