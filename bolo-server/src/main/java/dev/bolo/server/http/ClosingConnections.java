package dev.bolo.server.http;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds what a client may still send on a connection whose answer went out before its request body
 * was read: a request the gate refused (401, 429, 503), one sent to a path the gateway lacks, an
 * upload turned away, or one Jetty answered itself (a full waiting line). Such a request ends with
 * its answer, so it leaves {@link RequestAdmission}, the drain count and its thread at once; the
 * connection then closes, and Jetty reads and drops what is still arriving so that a phone still
 * sending reads its answer instead of a connection reset. That reading goes on only while the
 * client keeps the minimum body rate ({@code BOLO_MIN_BODY_RATE}, averaged from the answer on and
 * checked once a {@code BOLO_BODY_RATE_WINDOW} has passed, as for a body being read) and for at
 * most {@link #MAX_DISCARD_BYTES}; then the connection is closed. So a refused connection lasts at
 * most {@code MAX_DISCARD_BYTES / BOLO_MIN_BODY_RATE} (27 minutes at the default 16 KiB/s, for a
 * phone on a slow link still sending a large note), and about one window for a client trickling a
 * byte now and then. A sweep looks at every connection a few times per window. Thread safe.
 */
public final class ClosingConnections implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClosingConnections.class);

  /**
   * The most read after any answer, whatever the body's limit: one note of the former 25 MiB limit
   * and its form. Notes may now be hundreds of megabytes; reading that much of a refused body would
   * hold a connection for minutes for nothing, while a phone sending a note this long reads its
   * answer early anyway.
   */
  static final long MAX_DISCARD_BYTES = 26L * 1024 * 1024;

  private final Server server;
  private final long minBytesPerSecond;
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private final Map<EndPoint, Answered> closing = new ConcurrentHashMap<>();
  private final ScheduledFuture<?> sweeps;

  /** When a connection was first seen closing, and the bytes it had brought by then. */
  private record Answered(long sinceNanos, long bytesIn) {}

  private ClosingConnections(
      Server server,
      long minBytesPerSecond,
      Duration window,
      LongSupplier nanoTime,
      ScheduledExecutorService scheduler) {
    this.server = server;
    this.minBytesPerSecond = minBytesPerSecond;
    this.windowNanos = window.toNanos();
    this.nanoTime = nanoTime;
    long period = Math.max(50, Math.min(1000, window.toMillis() / 5));
    this.sweeps =
        scheduler.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * Starts sweeping the connectors of {@code server}.
   *
   * @param minBytesPerSecond the slowest a client may go on sending ({@code BOLO_MIN_BODY_RATE})
   * @param window what that rate is averaged over, and the grace before it is checked ({@code
   *     BOLO_BODY_RATE_WINDOW})
   */
  public static ClosingConnections start(
      Server server,
      long minBytesPerSecond,
      Duration window,
      LongSupplier nanoTime,
      ScheduledExecutorService scheduler) {
    return new ClosingConnections(server, minBytesPerSecond, window, nanoTime, scheduler);
  }

  private void sweep() {
    try {
      long now = nanoTime.getAsLong();
      Set<EndPoint> seen = new HashSet<>();
      OpenConnections.forEach(
          server,
          (endPoint, http) -> {
            // Closing: the answer is out, the connection ends once the client stops sending.
            if (!http.getParser().isClose()) {
              return;
            }
            Answered answered =
                closing.computeIfAbsent(endPoint, e -> new Answered(now, http.getBytesIn()));
            if (isOverdue(answered, now, http)) {
              endPoint.close();
            } else {
              seen.add(endPoint);
            }
          });
      closing.keySet().retainAll(seen);
    } catch (RuntimeException e) {
      log.warn("closing connection sweep failed: {}", e.toString());
    }
  }

  /** Whether the client has sent too much since its answer, or too slowly. */
  private boolean isOverdue(Answered answered, long now, HttpConnection http) {
    long sent = http.getBytesIn() - answered.bytesIn();
    // More than any refused note is read for the phone's sake.
    if (sent > MAX_DISCARD_BYTES) {
      return true;
    }
    long waited = now - answered.sinceNanos();
    // One window's grace, as for a body being read: a phone's link may pause.
    if (waited < windowNanos) {
      return false;
    }
    return sent < (double) minBytesPerSecond * waited / 1e9;
  }

  @Override
  public void close() {
    sweeps.cancel(false);
  }
}
