package dev.bolo.server.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.MethodNotAllowedResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers what no handler serves (an unknown path: 404, a known path with another method: 405) and
 * the other HTTP errors Javalin raises, in the JSON shape of the path's dialect rather than
 * Javalin's plain text. A request that carries a body (an SDK uploading a note to a path this
 * gateway lacks) gets its answer first, then the body is read and discarded up to a bound, so the
 * client reads the 404 instead of a connection reset.
 */
final class UnroutedRequests {

  private static final Logger log = LoggerFactory.getLogger(UnroutedRequests.class);

  /** How much of an unwanted body is read after the answer; beyond it the connection closes. */
  private final long drainLimitBytes;

  UnroutedRequests(long drainLimitBytes) {
    this.drainLimitBytes = drainLimitBytes;
  }

  void handle(HttpResponseException e, Context ctx) {
    String method = ctx.method().name();
    ApiError error =
        switch (e.getStatus()) {
          case 404 -> Errors.noRoute(method, ctx.path());
          case 405 -> {
            String allowed = allowedMethods(e);
            if (!allowed.isEmpty()) {
              ctx.header("Allow", allowed);
            }
            yield Errors.methodNotAllowed(method, allowed.isEmpty() ? "another method" : allowed);
          }
          default -> Errors.ofHttpStatus(e.getStatus());
        };
    if (!hasBody(ctx)) {
      ErrorWriter.write(ctx, error);
      return;
    }
    HttpServletResponse res = ctx.res();
    String requestId = RequestLog.requestIdOf(ctx);
    byte[] body = ErrorWriter.body(ErrorWriter.dialectOf(ctx.path()), error, requestId);
    try {
      // The body is not wanted: answer, then swallow what is still arriving (bounded) and close.
      res.setHeader("Connection", "close");
      res.setHeader(RequestLog.REQUEST_ID, requestId);
      res.setStatus(error.status());
      res.setContentType("application/json");
      res.setContentLength(body.length);
      res.getOutputStream().write(body);
      res.flushBuffer();
      drain(ctx);
    } catch (IOException gone) {
      log.info("client gone before the {} answer: {}", error.status(), gone.toString());
    }
  }

  private void drain(Context ctx) {
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] sink = new byte[64 * 1024];
      long discarded = 0;
      int n;
      while (discarded < drainLimitBytes && (n = in.read(sink)) != -1) {
        discarded += n;
      }
    } catch (IOException e) {
      // The client stopped sending; it has its answer or is gone.
    }
  }

  private static boolean hasBody(Context ctx) {
    return ctx.req().getContentLengthLong() > 0 || ctx.header("Transfer-Encoding") != null;
  }

  private static String allowedMethods(HttpResponseException e) {
    if (!(e instanceof MethodNotAllowedResponse)) {
      return "";
    }
    // Javalin lists the methods the path has in the exception's details.
    return e.getDetails().values().stream()
        .flatMap(v -> java.util.Arrays.stream(v.split(",")))
        .map(String::trim)
        .filter(v -> !v.isEmpty())
        .distinct()
        .collect(Collectors.joining(", "));
  }
}
