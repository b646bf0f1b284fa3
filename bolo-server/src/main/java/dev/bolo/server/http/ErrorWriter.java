package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The one place that renders an {@link ApiError} as a body: Bolo's native {@code
 * {"error","code","request_id"}} or OpenAI's {@code {"error":{...}}}. The handlers, the exception
 * mappers and Jetty's own errors (431, 414, 400, 408) all write through it.
 */
final class ErrorWriter {

  private static final ObjectMapper JSON = Json.MAPPER;
  private static final Pattern REQUEST_ID_FORMAT = Pattern.compile("[A-Za-z0-9._:/+=-]{1,128}");

  private ErrorWriter() {}

  /**
   * The OpenAI-compatible routes live under these prefixes (an unknown path there too, so an OpenAI
   * SDK reads its 404); everything else speaks native.
   */
  static TranscriptionHandler.Dialect dialectOf(@Nullable String path) {
    return path != null
            && (path.startsWith("/v1/audio/")
                || path.equals("/v1/models")
                || path.startsWith("/v1/models/"))
        ? TranscriptionHandler.Dialect.OPENAI
        : TranscriptionHandler.Dialect.NATIVE;
  }

  /** The client's request id when it is usable, else a fresh one so the logs can be joined. */
  static String requestId(@Nullable String header) {
    if (header != null && REQUEST_ID_FORMAT.matcher(header.trim()).matches()) {
      return header.trim();
    }
    return "srv-" + UUID.randomUUID();
  }

  /**
   * Answers {@code error} through Javalin in the dialect of the request's path, with its {@code
   * Retry-After} and the request id, and notes its code for the request metrics.
   */
  static void write(io.javalin.http.Context ctx, ApiError error) {
    RequestMetrics.noteOutcome(ctx.req(), error.code());
    String requestId = RequestLog.requestIdOf(ctx);
    ctx.header(RequestLog.REQUEST_ID, requestId);
    if (error.retryAfter() != null) {
      ctx.header("Retry-After", Long.toString(Errors.retryAfterSeconds(error.retryAfter())));
    }
    ctx.status(error.status())
        .contentType("application/json")
        .result(body(dialectOf(ctx.path()), error, requestId));
  }

  static byte[] body(TranscriptionHandler.Dialect dialect, ApiError error, String requestId) {
    ObjectNode body = JSON.createObjectNode();
    if (dialect == TranscriptionHandler.Dialect.NATIVE) {
      body.put("error", error.message());
      body.put("code", error.code());
      body.put("request_id", requestId);
    } else {
      ObjectNode inner = body.putObject("error");
      inner.put("message", error.message());
      inner.put("type", error.openAiType());
      if (error.param() == null) {
        inner.putNull("param");
      } else {
        inner.put("param", error.param());
      }
      inner.put("code", error.code());
    }
    try {
      return JSON.writeValueAsBytes(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings always serialises", e);
    }
  }
}
