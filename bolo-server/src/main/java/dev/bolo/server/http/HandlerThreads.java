package dev.bolo.server.http;

import io.javalin.Javalin;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Counts the threads inside the routes (between {@link RequestAdmission} and Javalin), so that the
 * server's stop lets them leave first ({@link #stop}, which finds it in the server's handlers).
 * Why: Jetty's stop closes each connection right after failing its request, and it answers that
 * request (503 {@code server_unavailable}, {@link JsonErrorHandler}) on the spot only when no
 * thread is handling it. A note handed to its work is waiting for its answer, but its request's
 * thread may still be on its way out of the handler; stopped then, Jetty would leave the answer to
 * that thread, which finds the connection closed, and the phone would read a connection cut short
 * instead of the answer telling it to resend. A request waiting for its turn holds no thread and is
 * not counted. Thread safe.
 */
public final class HandlerThreads extends Handler.Wrapper {

  private final AtomicInteger inside = new AtomicInteger();

  /** Set by a stop that waits: the last thread to leave opens it. */
  private volatile @Nullable CountDownLatch none;

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    // Every request passes here: a counter, no lock.
    inside.incrementAndGet();
    try {
      return super.handle(request, response, callback);
    } finally {
      if (inside.decrementAndGet() == 0) {
        @Nullable CountDownLatch waiting = none;
        if (waiting != null) {
          waiting.countDown();
        }
      }
    }
  }

  /**
   * Stops {@code javalin} once no thread is inside a route of its server (when its handlers count
   * them), or once {@code wait} has passed: a handler still reading a body or writing an answer
   * then has its connection closed under it.
   */
  public static void stop(Javalin javalin, Duration wait) throws InterruptedException {
    try {
      HandlerThreads threads = javalin.jettyServer().server().getDescendant(HandlerThreads.class);
      if (threads != null) {
        threads.awaitNone(wait);
      }
    } finally {
      javalin.stop();
    }
  }

  private void awaitNone(Duration wait) throws InterruptedException {
    CountDownLatch waiting = new CountDownLatch(1);
    none = waiting;
    // Published before looking: a thread leaving after this look sees the latch and opens it.
    if (inside.get() > 0) {
      waiting.await(wait.toNanos(), TimeUnit.NANOSECONDS);
    }
  }
}
