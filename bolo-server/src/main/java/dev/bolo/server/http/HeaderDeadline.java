package dev.bolo.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes connections whose request headers have not all arrived within {@code BOLO_HEADER_TIMEOUT}
 * of their first byte, with 408 {@code request_timeout}. Jetty's idle timeout alone does not: a
 * client sending one header byte every few seconds is never idle. A sweep looks at every connection
 * a few times per timeout; a connection waiting for its next request (parser at its start) is the
 * idle timeout's business. The deadline is each request's own: a connection that sends request
 * after request in good time is never cut because a sweep always finds it reading headers.
 */
public final class HeaderDeadline implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HeaderDeadline.class);

  private final Server server;
  private final long timeoutNanos;
  private final LongSupplier nanoTime;
  private final Map<EndPoint, Headers> headersSince = new ConcurrentHashMap<>();

  /**
   * When a connection was first seen reading a request's headers, and which request: the count of
   * requests it had read by then. A keep-alive connection that pipelines request after request is
   * seen reading headers at every sweep, each time another request's; the deadline is each one's.
   */
  private record Headers(long requestsBefore, long since) {}

  private final ScheduledFuture<?> sweeps;

  private HeaderDeadline(
      Server server, Duration timeout, LongSupplier nanoTime, ScheduledExecutorService scheduler) {
    this.server = server;
    this.timeoutNanos = timeout.toNanos();
    this.nanoTime = nanoTime;
    long period = Math.max(50, Math.min(1000, timeout.toMillis() / 5));
    this.sweeps =
        scheduler.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  /** Starts sweeping the connectors of {@code server}. */
  public static HeaderDeadline start(
      Server server, Duration timeout, LongSupplier nanoTime, ScheduledExecutorService scheduler) {
    return new HeaderDeadline(server, timeout, nanoTime, scheduler);
  }

  private void sweep() {
    try {
      long now = nanoTime.getAsLong();
      Set<EndPoint> seen = new HashSet<>();
      OpenConnections.forEach(
          server,
          (endPoint, http) -> {
            HttpParser parser = http.getParser();
            if (!parser.inHeaderState() || parser.isStart()) {
              return;
            }
            long requests = http.getMessagesIn();
            Headers headers =
                headersSince.compute(
                    endPoint,
                    (e, seenBefore) ->
                        seenBefore != null && seenBefore.requestsBefore() == requests
                            ? seenBefore
                            : new Headers(requests, now));
            if (now - headers.since() > timeoutNanos) {
              refuse(endPoint);
            } else {
              seen.add(endPoint);
            }
          });
      headersSince.keySet().retainAll(seen);
    } catch (RuntimeException e) {
      log.warn("header deadline sweep failed: {}", e.toString());
    }
  }

  private void refuse(EndPoint endPoint) {
    log.info("closing a connection whose request headers did not arrive in time");
    byte[] body =
        ErrorWriter.body(
            Dialect.NATIVE,
            Errors.requestTimeout(
                "the request headers did not arrive within "
                    + timeoutNanos / 1_000_000
                    + " ms; resend on a better connection"),
            ErrorWriter.requestId(null));
    String head =
        "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    ByteBuffer answer = ByteBuffer.allocate(head.length() + body.length);
    answer.put(head.getBytes(StandardCharsets.US_ASCII)).put(body).flip();
    endPoint.write(Callback.from(endPoint::close, failure -> endPoint.close()), answer);
  }

  @Override
  public void close() {
    sweeps.cancel(false);
  }
}
