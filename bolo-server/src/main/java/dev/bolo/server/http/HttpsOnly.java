package dev.bolo.server.http;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * With TLS on, what plain HTTP may still do on the gateway's port: a request from this machine
 * (loopback: a health probe, {@code bolo transcribe}, a reverse proxy on the same host) is served
 * as before; one from elsewhere is answered 308 Permanent Redirect to the same URL over HTTPS, so a
 * person who typed {@code 192.168.1.5:8080} on a phone lands on the page, and no token or note
 * crosses the network in the clear. 308 keeps the method (RFC 9110, 15.4.9), and a client that does
 * not follow it gets nothing served. Thread safe.
 */
public final class HttpsOnly extends Handler.Wrapper {

  /** HTTPS's own port, which a URL leaves out. */
  private static final int HTTPS_PORT = 443;

  public HttpsOnly(Handler handler) {
    super(handler);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    if (request.isSecure() || isFromThisMachine(request)) {
      return super.handle(request, response, callback);
    }
    HttpURI uri = request.getHttpURI();
    // The port the client asked for is the one that speaks TLS too; behind a port forward it is
    // not the local one.
    int port = uri.getPort() > 0 ? uri.getPort() : Request.getLocalPort(request);
    HttpURI.Mutable secure =
        HttpURI.build(uri).scheme("https").port(port == HTTPS_PORT ? -1 : port);
    if (uri.getHost() == null) {
      // HTTP/1.0 without Host: the address the request came in on.
      secure.host(Request.getLocalAddr(request));
    }
    Response.sendRedirect(request, response, callback, 308, secure.asString(), false);
    return true;
  }

  private static boolean isFromThisMachine(Request request) {
    SocketAddress remote = request.getConnectionMetaData().getRemoteSocketAddress();
    return remote instanceof InetSocketAddress address
        && address.getAddress() != null
        && address.getAddress().isLoopbackAddress();
  }
}
