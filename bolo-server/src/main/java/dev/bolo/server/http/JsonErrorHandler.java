package dev.bolo.server.http;

import dev.bolo.server.ledger.Device;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;

/**
 * Renders the errors Jetty raises itself (a malformed request line, headers over the limit, an
 * over-long URI, a server fault outside a handler, an upload turned away by {@link
 * RequestAdmission}) in the endpoint's own JSON shape through {@link ErrorWriter}, instead of
 * Jetty's HTML page with its internal message, and writes the request's access line, which no route
 * wrote. An upload turned away is answered as every refused body ({@link RefusedBodyDrain}).
 */
public final class JsonErrorHandler extends ErrorHandler {

  private static final String JSON_TYPE = "application/json";

  private static final Duration STOPPING_RETRY_AFTER = Duration.ofSeconds(2);

  private final RequestMetrics metrics;

  /** Times an access line as {@code metrics} times the answer, on the same ticker. */
  public JsonErrorHandler(RequestMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    if (request.getAttribute(ERROR_STATUS) instanceof Integer given) {
      status = given;
    }
    if (status < 400) {
      status = 500;
    }
    // A request the server ends as it stops (its drain ran out) was not failed by the server: the
    // phone is told to resend, not that something broke.
    boolean stopping = request.getConnectionMetaData().getConnector().getServer().isStopping();
    ApiError error =
        status == 500 && stopping
            ? Errors.serverUnavailable("the gateway is stopping; resend", STOPPING_RETRY_AFTER)
            : Errors.ofHttpStatus(status);
    status = error.status();
    RequestMetrics.noteOutcome(request, error.code());
    // The id a route gave the request, when one began it, so its lines and this answer agree.
    String requestId =
        request.getAttribute(RequestLog.ID_ATTRIBUTE) instanceof String named
            ? named
            : ErrorWriter.requestId(request.getHeaders().get(RequestLog.REQUEST_ID));
    String path = request.getHttpURI().getPath();
    byte[] body = ErrorWriter.body(Dialect.of(path), error, requestId);
    response.setStatus(status);
    HttpFields.Mutable headers = response.getHeaders();
    headers.put(HttpHeader.CONTENT_TYPE, JSON_TYPE);
    headers.put(RequestLog.REQUEST_ID, requestId);
    // Jetty's own errors bypass the routes' before-handler; they carry the same headers.
    SecurityHeaders.HEADERS.forEach(headers::put);
    if (error.retryAfter() != null) {
      headers.put(
          HttpHeader.RETRY_AFTER, Long.toString(Errors.retryAfterSeconds(error.retryAfter())));
    }
    RequestLog.answeredByJetty(
        request.getMethod(),
        path == null ? "" : path,
        status,
        requestId,
        request.getAttribute(DeviceGate.DEVICE_ATTRIBUTE) instanceof Device device
            ? device.name()
            : null,
        durationMillis(request));
    // An upload turned away by the line of requests served, its body unread: as every refused
    // body, answered and then read and dropped, so that a client still sending reads the 503.
    // The drain is arranged before the write, whose end completes the request.
    if (status == 503 && !stopping && RefusedBodyDrain.afterAnswer(request)) {
      headers.put(HttpHeader.CONNECTION, "close");
    }
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  /**
   * How long the request took: on the gateway's ticker from when the outermost wrapper saw it; a
   * request Jetty refused while parsing reached no wrapper and has only Jetty's own stamp, on
   * Jetty's clock.
   */
  private long durationMillis(Request request) {
    Long since = metrics.millisSinceStart(request);
    return since != null ? since : NanoTime.millisSince(request.getBeginNanoTime());
  }

  /** Errors found before a request exists (no path known): the native shape. */
  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(HttpHeader.CONTENT_TYPE, JSON_TYPE);
    return ByteBuffer.wrap(
        ErrorWriter.body(Dialect.NATIVE, Errors.ofHttpStatus(status), ErrorWriter.requestId(null)));
  }
}
