package dev.bolo.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.opentelemetry.context.Scope;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The outermost wrapper of every device route: what it does before and after its handler, in one
 * place. It names the request (the client's {@code X-Bolo-Request-Id} when usable, else a fresh
 * id), echoes that id, keeps it and the device in the MDC for every line the request logs, begins
 * the request's {@link RequestEnd} and finishes it once the handler returned, its one access line
 * (the status the response carries and the time it took) the last step. When traces are on, the
 * request's span ({@link RequestSpans}) is current meanwhile, named by the route's template, its
 * ids in every line. The handlers inside only answer and register what they let go of. Thread safe.
 */
final class RequestLog implements Handler {

  private static final Logger log = LoggerFactory.getLogger(RequestLog.class);

  static final String REQUEST_ID = "X-Bolo-Request-Id";

  /** Where the request's id is kept, so every part of the request names it alike. */
  static final String ID_ATTRIBUTE = "bolo.request_id";

  /** When a device route began the request (the ticker's nanoseconds), for a failure's line. */
  private static final String STARTED_ATTRIBUTE = "bolo.started";

  private final Handler handler;
  private final LongSupplier ticker;

  private RequestLog(Handler handler, LongSupplier ticker) {
    this.handler = Objects.requireNonNull(handler, "handler");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /**
   * {@code handler} with the request's id, its MDC and its access line around it; the line's
   * duration is measured on {@code ticker} (elapsed nanoseconds).
   */
  static Handler around(Handler handler, LongSupplier ticker) {
    return new RequestLog(handler, ticker);
  }

  @Override
  public void handle(Context ctx) throws Exception {
    String requestId = requestIdOf(ctx);
    MDC.put("request_id", requestId);
    RequestSpans.nameRequest(ctx.req(), requestId);
    Scope traced = RequestSpans.enter(ctx.req(), ctx.endpoint().path);
    long started = ticker.getAsLong();
    ctx.attribute(STARTED_ATTRIBUTE, started);
    RequestEnd end = RequestEnd.begin(ctx);
    try {
      ctx.res().setHeader(REQUEST_ID, requestId);
      try {
        handler.handle(ctx);
      } catch (Exception | Error e) {
        end.finishFailed();
        throw e;
      }
      // A later answer writes its line when written, on its thread with the request's MDC.
      end.finish(
          () ->
              accessLine(
                  ctx.method().name(),
                  ctx.path(),
                  ctx.statusCode(),
                  (ticker.getAsLong() - started) / 1_000_000));
    } finally {
      traced.close();
      MDC.remove("device");
      MDC.remove("request_id");
    }
  }

  /**
   * The access line of a request Jetty answered itself (turned away by {@link RequestAdmission},
   * malformed, or ended as the server stopped): the same line, with its id in the MDC, and its
   * device when the gate had let one in.
   */
  static void answeredByJetty(
      String method, String path, int status, String requestId, @Nullable String device, long ms) {
    withMdc(
        "request_id",
        requestId,
        () -> withMdc("device", device, () -> accessLine(method, path, status, ms)));
  }

  /**
   * Answers a failure that escaped a handler ({@code answer} logs it and writes the error) under
   * the request's id, then writes the access line the handler's exit skipped, when a device route
   * began the request; {@code ticker} is the one that route measures on.
   */
  static void failed(Context ctx, Runnable answer, LongSupplier ticker) {
    withMdc(
        "request_id",
        requestIdOf(ctx),
        () -> {
          answer.run();
          @Nullable Long started = ctx.attribute(STARTED_ATTRIBUTE);
          if (started != null) {
            accessLine(
                ctx.method().name(),
                ctx.path(),
                ctx.statusCode(),
                (ticker.getAsLong() - started) / 1_000_000);
          }
        });
  }

  /**
   * Runs {@code action} with {@code value} under {@code key} in the MDC, then puts back what was
   * there; a null {@code value} leaves the MDC as it is.
   */
  private static void withMdc(String key, @Nullable String value, Runnable action) {
    if (value == null) {
      action.run();
      return;
    }
    @Nullable String outer = MDC.get(key);
    MDC.put(key, value);
    try {
      action.run();
    } finally {
      if (outer == null) {
        MDC.remove(key);
      } else {
        MDC.put(key, outer);
      }
    }
  }

  /** One request's access line; status and duration as fields too, for BOLO_LOG_FORMAT=json. */
  private static void accessLine(String method, String path, int status, long ms) {
    log.atInfo()
        .addKeyValue("status", status)
        .addKeyValue("duration_ms", ms)
        .log("{} {} -> {} in {} ms", method, path, status, ms);
  }

  /**
   * The request's id: the client's {@code X-Bolo-Request-Id} when usable, else a fresh one; the
   * same for every caller during one request.
   */
  static String requestIdOf(Context ctx) {
    @Nullable String known = ctx.attribute(ID_ATTRIBUTE);
    if (known != null) {
      return known;
    }
    String requestId = ErrorWriter.requestId(ctx.header(REQUEST_ID));
    ctx.attribute(ID_ATTRIBUTE, requestId);
    return requestId;
  }

  /** Names the device in every later line the request logs, its access line included. */
  static void nameDevice(String device) {
    MDC.put("device", device);
  }
}
