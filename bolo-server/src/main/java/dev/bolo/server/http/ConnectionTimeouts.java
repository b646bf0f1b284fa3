package dev.bolo.server.http;

import io.javalin.http.Context;
import java.time.Duration;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;

/**
 * The idle timeouts one connection goes through: {@code idle} between requests (the connector's),
 * {@code body} while an upload arrives (a silent body is cut after one rate window), and {@code
 * answer} while the phone waits for its transcript (the engine's deadline cap plus a margin).
 */
public record ConnectionTimeouts(Duration idle, Duration body, Duration answer) {

  /**
   * A waiting request's idle timeout must outlast the longest transcription (the engine deadline's
   * cap plus the wait of a duplicate), or a phone waiting for its answer is cut off.
   */
  private static final Duration IDLE_TIMEOUT_MARGIN = Duration.ofMinutes(1);

  private static final Duration MIN_ANSWER_TIMEOUT = Duration.ofMinutes(4);

  /**
   * The timeouts of a gateway whose engine deadline is at most {@code upstreamCap}: a request
   * waiting for its transcript keeps its connection for that cap plus the wait of a duplicate.
   */
  public static ConnectionTimeouts of(Duration idle, Duration body, Duration upstreamCap) {
    Duration answer = upstreamCap.plus(IDLE_TIMEOUT_MARGIN);
    return new ConnectionTimeouts(
        idle, body, answer.compareTo(MIN_ANSWER_TIMEOUT) < 0 ? MIN_ANSWER_TIMEOUT : answer);
  }

  /** Sets the idle timeout of the connection carrying this request. */
  void setIdleTimeout(Context ctx, Duration timeout) {
    ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
    if (request == null) {
      return;
    }
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    endPoint.setIdleTimeout(timeout.toMillis());
  }
}
