package dev.bolo.server.http;

import java.util.function.BiConsumer;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * The HTTP/1.1 connections a server holds open, for the sweep that closes those whose client keeps
 * the head of a request too long ({@link HeaderDeadline}). Stateless.
 */
final class OpenConnections {

  private OpenConnections() {}

  /**
   * Calls {@code visit} with each open HTTP connection of {@code server} and the end point its
   * bytes go through: over TLS, the decrypting one, which the answer is written to and closed by.
   */
  static void forEach(Server server, BiConsumer<EndPoint, HttpConnection> visit) {
    for (Connector connector : server.getConnectors()) {
      for (EndPoint connected : connector.getConnectedEndPoints()) {
        EndPoint endPoint =
            connected.getConnection() instanceof SslConnection tls
                ? tls.getSslEndPoint()
                : connected;
        if (endPoint.getConnection() instanceof HttpConnection http) {
          visit.accept(endPoint, http);
        }
      }
    }
  }
}
