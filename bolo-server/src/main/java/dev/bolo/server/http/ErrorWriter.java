package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of error answers: {@link #write} sends an {@link ApiError} as Bolo's native {@code
 * {"error","code","request_id"}} or OpenAI's {@code {"error":{...}}}, with its status, {@code
 * Retry-After} and the request's id. The handlers, the gate, the exception mappers and the unrouted
 * requests all answer through it; Jetty's own errors (431, 414, 400, 408), which come before any
 * route, render the same {@link #body}. Thread safe (stateless).
 */
final class ErrorWriter {

  private static final Logger log = LoggerFactory.getLogger(ErrorWriter.class);
  private static final ObjectMapper JSON = HttpJson.MAPPER;
  private static final Pattern REQUEST_ID_FORMAT = Pattern.compile("[A-Za-z0-9._:/+=-]{1,128}");

  private ErrorWriter() {}

  /** The client's request id when it is usable, else a fresh one so the logs can be joined. */
  static String requestId(@Nullable String header) {
    if (header != null && REQUEST_ID_FORMAT.matcher(header.trim()).matches()) {
      return header.trim();
    }
    return "srv-" + UUID.randomUUID();
  }

  /**
   * Answers {@code error} in {@code dialect} at once: status, {@code Retry-After}, the request id
   * and the body, which a HEAD request does without (HTTP sends none); notes its code for the
   * request metrics. The answer is flushed before this returns, so a caller may go on to read and
   * discard a body the client is still sending. A client that hung up gets nothing.
   */
  static void write(Context ctx, Dialect dialect, ApiError error) {
    RequestMetrics.noteOutcome(ctx.req(), error.code());
    String requestId = RequestLog.requestIdOf(ctx);
    HttpServletResponse res = ctx.res();
    res.setHeader(RequestLog.REQUEST_ID, requestId);
    if (error.retryAfter() != null) {
      res.setHeader("Retry-After", Long.toString(Errors.retryAfterSeconds(error.retryAfter())));
    }
    res.setStatus(error.status());
    if (ctx.method().name().equals("HEAD")) {
      return;
    }
    byte[] body = body(dialect, error, requestId);
    res.setContentType("application/json");
    res.setContentLength(body.length);
    try {
      res.getOutputStream().write(body);
      res.flushBuffer();
    } catch (IOException e) {
      log.info("client gone before the {} answer: {}", error.status(), e.toString());
    }
  }

  /**
   * Answers {@code error} to a request whose body is not read, or not all of it (refused before its
   * first byte, or turned away part-way): the connection closes after the answer. The request ends
   * with its answer, so it leaves {@link RequestAdmission}, the drain count and its thread at once;
   * what the client is still sending is read and dropped by a {@link RefusedBodyDrain} within the
   * bounds of {@link ClosingConnections}, so that it reads this answer instead of a connection
   * reset. The one way every route refuses a body.
   */
  static void refuseBody(Context ctx, Dialect dialect, ApiError error) {
    ctx.res().setHeader("Connection", "close");
    write(ctx, dialect, error);
    RefusedBodyDrain.afterAnswer(ctx.req());
  }

  /** The body of {@code error} in {@code dialect}, for {@link #write} and Jetty's own errors. */
  static byte[] body(Dialect dialect, ApiError error, String requestId) {
    ObjectNode body = JSON.createObjectNode();
    switch (dialect) {
      case NATIVE -> {
        body.put("error", error.message());
        body.put("code", error.code());
        body.put("request_id", requestId);
      }
      case OPENAI -> {
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
    }
    try {
      return JSON.writeValueAsBytes(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings always serialises", e);
    }
  }
}
