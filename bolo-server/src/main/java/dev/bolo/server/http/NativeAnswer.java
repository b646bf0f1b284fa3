package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.work.KeptTranscript;
import java.io.IOException;

/**
 * The native endpoints' 200 body (PROTOCOL.md): one shape whether the transcript was made for this
 * request, joined, replayed from the store, found by a lookup or ended a resumable upload.
 */
final class NativeAnswer {

  private static final ObjectMapper JSON = HttpJson.MAPPER;

  private NativeAnswer() {}

  /**
   * The JSON body for {@code transcript}, answered to the request {@code requestId}; {@code model}
   * is the model the work asked for, {@code format} the format its text was asked in.
   */
  static byte[] body(
      KeptTranscript transcript,
      ResponseFormat format,
      boolean replayed,
      String requestId,
      String model)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("text", Renditions.text(transcript.transcript(), format, transcript.durationMs()));
    body.put("deduplicated", replayed);
    body.put("audio_sha256", transcript.audioSha256());
    body.put("duration_ms", transcript.durationMs());
    body.put("request_id", requestId);
    body.put("engine", transcript.engine());
    body.put("model", AnswerHeaders.modelOf(transcript, model));
    return JSON.writeValueAsBytes(body);
  }
}
