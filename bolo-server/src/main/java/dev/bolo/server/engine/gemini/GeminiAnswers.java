package dev.bolo.server.engine.gemini;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Transcript;

/**
 * Reads a successful {@code generateContent} answer: {@code {"candidates": [{"content": {"parts":
 * [{"text"}]}, "finishReason"}], "promptFeedback": {"blockReason"}}}.
 */
final class GeminiAnswers {

  private final ObjectMapper json;

  GeminiAnswers(ObjectMapper json) {
    this.json = json;
  }

  EngineResult transcript(String body) {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JsonProcessingException e) {
      return new EngineResult.Failed("Gemini answered with a body that is not JSON");
    }
    if (!root.isObject()) {
      return new EngineResult.Failed("Gemini answered with JSON that is not an object");
    }
    // A blocked prompt has promptFeedback.blockReason and no candidates at all.
    String blockReason = root.path("promptFeedback").path("blockReason").asText("");
    if (!blockReason.isEmpty()) {
      return new EngineResult.Failed("Gemini blocked the request: " + blockReason);
    }
    JsonNode candidates = root.path("candidates");
    if (!candidates.isArray() || candidates.isEmpty()) {
      return new EngineResult.Failed("Gemini answered with no candidates");
    }
    JsonNode candidate = candidates.get(0);
    String text = textOf(candidate);
    String finishReason = candidate.path("finishReason").asText("");
    return switch (finishReason) {
      // STOP with no text is a recording without speech, which the instruction allows.
      case "", "STOP" -> new EngineResult.Transcribed(Transcript.plain(text.strip()));
      // A truncated transcript would be replayed as if complete; a resend may do better.
      case "MAX_TOKENS" ->
          new EngineResult.Failed("Gemini cut the transcript short (finishReason MAX_TOKENS)");
      // SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, LANGUAGE, OTHER: the model stopped
      // on purpose; any text before the stop is a fragment, not the note.
      default ->
          new EngineResult.Failed(
              text.isBlank()
                  ? "Gemini gave no transcript (finishReason " + finishReason + ")"
                  : "Gemini stopped the transcript early (finishReason " + finishReason + ")");
    };
  }

  /** The text parts in order, leaving out thought summaries that thinking models may add. */
  private static String textOf(JsonNode candidate) {
    StringBuilder text = new StringBuilder();
    for (JsonNode part : candidate.path("content").path("parts")) {
      if (part.path("text").isTextual() && !part.path("thought").asBoolean(false)) {
        text.append(part.path("text").asText());
      }
    }
    return text.toString();
  }
}
