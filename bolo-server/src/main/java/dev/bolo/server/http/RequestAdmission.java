package dev.bolo.server.http;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The first rung of the {@link AdmissionLadder} ({@link AdmissionLadder#REQUESTS_SERVED}):
 * admission of upload requests by count, with Jetty's {@link QoSHandler}: at most {@code maxActive}
 * are served at once, and the rest wait their turn in arrival order without a thread, their bodies
 * unread in the socket. A request that has waited {@code maxWait}, or that finds the waiting line
 * full, is answered 503 {@code server_unavailable} with {@code Retry-After} by {@link
 * JsonErrorHandler}, in its endpoint's shape, before any of its body is read.
 *
 * <p>Why: every request being served holds about 40 KiB of heap (its note, its provider call's
 * parked virtual-thread stack, a provider connection), so ten thousand phones waiting on a slow
 * provider need more than a 256 MiB heap has. A waiting request holds only its connection, its
 * parsed headers and Jetty's connection buffer.
 *
 * <p>Only the routes that carry a note or its parts wait; probes, metrics, lookups and the admin
 * API never do, nor does a request without a bearer token, which {@link DeviceGate} answers 401 at
 * once. Thread safe.
 */
public final class RequestAdmission extends QoSHandler {

  /** Requests that may wait per request served; beyond it the line is full. */
  static final int WAITING_PER_ACTIVE = 2;

  /** The routes that carry a note or its parts, as Jetty path specs. */
  private static final String[] UPLOAD_PATHS = {
    "/v1/transcriptions", "/v1/audio/transcriptions", "/v1/audio/translations", "/v1/uploads/*"
  };

  /**
   * @param maxActive upload requests served at once ({@code BOLO_MAX_CONCURRENT_REQUESTS})
   * @param maxWait how long one waits for its turn ({@code BOLO_REQUEST_QUEUE_WAIT}); zero: none
   *     waits, a request over the limit is answered 503 at once
   */
  public RequestAdmission(int maxActive, Duration maxWait, MeterRegistry metrics) {
    if (maxActive < 1 || maxWait.isNegative()) {
      throw new IllegalArgumentException(
          "maxActive must be positive and maxWait not negative: " + maxActive + ", " + maxWait);
    }
    setMaxRequestCount(maxActive);
    boolean waits = !maxWait.isZero();
    setMaxSuspendedRequestCount(
        waits ? (int) Math.min(Integer.MAX_VALUE, (long) maxActive * WAITING_PER_ACTIVE) : 0);
    // QoSHandler reads zero as "wait forever"; no wait at all is an empty line instead.
    setMaxSuspend(waits ? maxWait : Duration.ofMillis(1));
    includeMethod("POST", "PATCH");
    includePath(UPLOAD_PATHS);
    // The gate refuses a request without a bearer token at once, its body unread; let into the
    // line, such requests could fill it and turn the devices' uploads away.
    exclude(RequestAdmission::hasNoBearerToken);
    Gauge.builder("bolo_requests_waiting", this, RequestAdmission::getSuspendedRequestCount)
        .description(
            "Upload requests waiting for their turn (BOLO_MAX_CONCURRENT_REQUESTS are served at"
                + " once)")
        .register(metrics);
    FunctionCounter.builder(
            "bolo_requests_turned_away",
            this,
            a -> a.getTotalExpiredRequestCount() + a.getTotalExceededRequestCount())
        .description(
            "Upload requests answered 503 because they waited BOLO_REQUEST_QUEUE_WAIT or found"
                + " the waiting line full")
        .register(metrics);
  }

  /**
   * A waiting upload is silent because the gateway makes it wait: an idle timeout while it waits,
   * with nothing read or written, is ignored. Unheeded, Jetty would fail the request, and once let
   * in its first read would fail as if the phone had stopped sending (408, which a phone does not
   * resend). Reads and writes under way still time out, and the wait itself is bounded by {@code
   * BOLO_REQUEST_QUEUE_WAIT}; the connection's own timeout is left as it is.
   */
  @Override
  public boolean onConditionsMet(Request request, Response response, Callback callback)
      throws Exception {
    request.addIdleTimeoutListener(timeout -> false);
    return super.onConditionsMet(request, response, callback);
  }

  private static boolean hasNoBearerToken(Request request) {
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    return authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7);
  }

  /** Upload requests waiting for their turn now. */
  public int waiting() {
    return getSuspendedRequestCount();
  }
}
