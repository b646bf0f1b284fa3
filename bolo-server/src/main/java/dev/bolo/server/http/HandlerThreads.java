package dev.bolo.server.http;

import io.javalin.Javalin;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

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

  /** The threads inside, counted as the drain counts the notes being served; never closed. */
  private final InFlightRequests inside = new InFlightRequests();

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    // Never closed, so always counted.
    inside.tryEnter();
    try {
      return super.handle(request, response, callback);
    } finally {
      inside.exit();
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
        threads.inside.awaitIdle(wait);
      }
    } finally {
      javalin.stop();
    }
  }
}
