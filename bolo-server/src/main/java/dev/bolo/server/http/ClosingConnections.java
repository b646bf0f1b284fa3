package dev.bolo.server.http;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds what a client may still send on a connection whose answer went out before its request body
 * was read: a request the gate refused (401, 429, 503), one sent to a path the gateway lacks, or an
 * upload turned away. Such a request ends with its answer, so it leaves {@link RequestAdmission},
 * the drain count and its thread at once; its connection then becomes a {@link RefusedBodyDrain},
 * which reads and drops what is still arriving so that a phone still sending reads its answer
 * instead of a connection reset. That reading goes on only while the client keeps the minimum body
 * rate ({@code BOLO_MIN_BODY_RATE}, averaged from the answer on and checked once a {@code
 * BOLO_BODY_RATE_WINDOW} has passed, as for a body being read) and for at most {@link
 * #MAX_DISCARD_BYTES} (counted by the drain as it reads); then the connection is closed. So a
 * refused connection lasts at most {@code MAX_DISCARD_BYTES / BOLO_MIN_BODY_RATE} (27 minutes at
 * the default 16 KiB/s, for a phone on a slow link still sending a large note), and about one
 * window for a client trickling a byte now and then. A sweep looks at every drain a few times per
 * window. The server holds it as a bean, where {@link RefusedBodyDrain#afterAnswer} finds it.
 * Thread safe.
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

  /**
   * The most connections reading refused bodies at once; beyond them a refused connection closes at
   * once, its client meeting a reset. Each costs a socket and no thread or buffer while it waits,
   * and a client must keep the minimum rate to hold one past a window.
   */
  static final int MAX_DRAINS = 1024;

  private final Server server;
  private final long minBytesPerSecond;
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private final Set<RefusedBodyDrain> draining = ConcurrentHashMap.newKeySet();
  private final ScheduledFuture<?> sweeps;

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
    server.addBean(this, false);
  }

  /**
   * Starts sweeping the refused bodies' connections of {@code server}, and joins it as a bean.
   *
   * @param minBytesPerSecond the slowest a client may go on sending ({@code BOLO_MIN_BODY_RATE})
   * @param window what that rate is averaged over, and the grace before it is checked ({@code
   *     BOLO_BODY_RATE_WINDOW})
   * @param metrics where {@code bolo_refused_body_drains} is shown
   */
  public static ClosingConnections start(
      Server server,
      long minBytesPerSecond,
      Duration window,
      LongSupplier nanoTime,
      ScheduledExecutorService scheduler,
      MeterRegistry metrics) {
    ClosingConnections closing =
        new ClosingConnections(server, minBytesPerSecond, window, nanoTime, scheduler);
    Gauge.builder("bolo_refused_body_drains", closing.draining, Set::size)
        .description("Connections reading and dropping a refused body after its answer")
        .register(metrics);
    return closing;
  }

  /** The clock the drains are timed on. */
  long nanoTime() {
    return nanoTime.getAsLong();
  }

  /** Whether another refused body's connection may drain ({@link #MAX_DRAINS}). */
  boolean admitsAnother() {
    return draining.size() < MAX_DRAINS;
  }

  void draining(RefusedBodyDrain drain) {
    draining.add(drain);
  }

  void drained(RefusedBodyDrain drain) {
    draining.remove(drain);
  }

  private void sweep() {
    try {
      long now = nanoTime.getAsLong();
      for (RefusedBodyDrain drain : draining) {
        if (!drain.getEndPoint().isOpen()) {
          // Closed without the drain hearing of it (during its hand-over): forgotten here.
          draining.remove(drain);
        } else if (isOverdue(drain, now)) {
          drain.getEndPoint().close();
        }
      }
    } catch (RuntimeException e) {
      log.warn("closing connection sweep failed: {}", e.toString());
    }
  }

  /**
   * Whether the client has sent too slowly since its answer; the drain itself closes once it has
   * read {@link #MAX_DISCARD_BYTES}.
   */
  private boolean isOverdue(RefusedBodyDrain drain, long now) {
    long sent = drain.dropped();
    long waited = now - drain.sinceNanos();
    // One window's grace, as for a body being read: a phone's link may pause.
    if (waited < windowNanos) {
      return false;
    }
    return sent < (double) minBytesPerSecond * waited / 1e9;
  }

  @Override
  public void close() {
    sweeps.cancel(false);
    server.removeBean(this);
  }
}
