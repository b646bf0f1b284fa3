package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.transcription.WorkProgress;
import io.javalin.http.Context;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The 202 {@code running} answer of the lookup and of a resumable upload's transcription
 * (PROTOCOL.md "Progress"): {@code {"status":"running"}} with {@code Retry-After: 1}, and {@code
 * seconds_done} of {@code seconds_total} when the gateway knows how far the work has got. Stateless
 * and thread safe.
 */
final class RunningAnswer {

  private static final ObjectMapper JSON = HttpJson.MAPPER;

  private RunningAnswer() {}

  /**
   * Answers 202 running.
   *
   * @param progress how far the work has got; null when the note is incomplete, or runs where this
   *     instance cannot see it
   */
  static void send(Context ctx, @Nullable WorkProgress progress) throws IOException {
    // RFC 9110 Retry-After in seconds: running work usually ends within a few.
    ctx.header("Retry-After", "1");
    ctx.status(202).contentType("application/json").result(JSON.writeValueAsBytes(body(progress)));
  }

  private static ObjectNode body(@Nullable WorkProgress progress) {
    ObjectNode body = JSON.createObjectNode().put("status", "running");
    if (progress != null) {
      // Seconds, as the note's other lengths are spoken of to a phone.
      body.put("seconds_done", progress.doneMillis() / 1000.0);
      body.put("seconds_total", progress.totalMillis() / 1000.0);
    }
    return body;
  }
}
