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
