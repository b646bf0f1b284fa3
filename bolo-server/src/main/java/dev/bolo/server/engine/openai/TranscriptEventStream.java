package dev.bolo.server.engine.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ProviderMessage;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.engine.TranscriptDeltas;
import java.io.IOException;
import okio.BufferedSource;
import org.jspecify.annotations.Nullable;

/**
 * Reads OpenAI's transcription event stream (server-sent events, one JSON object per {@code data}
 * field: {@code transcript.text.delta} with a {@code delta}, then one {@code transcript.text.done}
 * with the whole {@code text} and, where the provider gives it, its {@code usage}). Deltas go to
 * the caller as they arrive; only a stream that reaches its done event is a transcript.
 */
final class TranscriptEventStream {

  private static final ObjectMapper JSON = new ObjectMapper();

  private TranscriptEventStream() {}

  /**
   * Reads the stream to its done event.
   *
   * @throws IOException when the connection fails; the engine maps it like any other
   */
  static EngineResult read(BufferedSource source, TranscriptDeltas deltas) throws IOException {
    StringBuilder data = new StringBuilder();
    String line;
    while ((line = source.readUtf8Line()) != null) {
      if (!line.isEmpty()) {
        // The WHATWG event-stream rules: "data:" lines accumulate, other fields and comments are
        // not needed here; an event ends at a blank line.
        if (line.startsWith("data:")) {
          String value = line.substring(5);
          data.append(value.startsWith(" ") ? value.substring(1) : value).append('\n');
        }
        continue;
      }
      EngineResult done = dispatch(data, deltas);
      data.setLength(0);
      if (done != null) {
        return done;
      }
    }
    // A last event without its blank line still counts.
    EngineResult done = dispatch(data, deltas);
    if (done != null) {
      return done;
    }
    return new EngineResult.Failed(
        "the provider's stream ended before the transcript was complete");
  }

  /** Handles one event; the result when it ends the stream, else null. */
  private static @Nullable EngineResult dispatch(StringBuilder data, TranscriptDeltas deltas) {
    if (data.isEmpty()) {
      return null;
    }
    String payload = data.substring(0, data.length() - 1);
    if (payload.equals("[DONE]")) {
      return null;
    }
    JsonNode event;
    try {
      event = JSON.readTree(payload);
    } catch (IOException e) {
      return new EngineResult.Failed("the provider's stream carried unparseable JSON");
    }
    JsonNode error = event.path("error");
    if (!error.isMissingNode() && !error.isNull()) {
      String message = error.isTextual() ? error.asText() : error.path("message").asText("");
      return new EngineResult.Failed(
          "the provider's stream failed: " + ProviderMessage.sanitised(message, "an error event"));
    }
    switch (event.path("type").asText("")) {
      case "transcript.text.delta" -> {
        String delta = event.path("delta").asText("");
        if (!delta.isEmpty()) {
          deltas.accept(delta);
        }
        return null;
      }
      case "transcript.text.done" -> {
        JsonNode text = event.path("text");
        if (!text.isTextual()) {
          return new EngineResult.Failed("the provider's done event has no text");
        }
        return new EngineResult.Transcribed(
            Transcript.plain(
                text.asText().strip(), OpenAiCompatibleEngine.reportedDurationMs(event)),
            OpenAiCompatibleEngine.usageOf(event));
      }
      default -> {
        // Events this gateway does not use (logprobs, segments of other APIs) pass by.
        return null;
      }
    }
  }
}
