package dev.bolo.server.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.MethodNotAllowedResponse;
import java.util.stream.Collectors;

/**
 * Answers what no handler serves (an unknown path: 404, a known path with another method: 405) and
 * the other HTTP errors Javalin raises, in the JSON shape of the path's dialect rather than
 * Javalin's plain text. A request that carries a body (an SDK uploading a note to a path this
 * gateway lacks) ends with its answer and its connection closes after it; what is still arriving is
 * read and dropped within the bounds of {@link ClosingConnections}, so the client reads the 404
 * instead of a connection reset.
 */
final class UnroutedRequests {

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
      ErrorWriter.write(ctx, Dialect.of(ctx.path()), error);
      return;
    }
    // The body is not wanted: answer and close.
    ErrorWriter.refuseBody(ctx, Dialect.of(ctx.path()), error);
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
