package dev.bolo.server.tls;

import java.security.SecureRandom;
import java.util.Base64;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The gateway's port with TLS: one Jetty connector that looks at a connection's first bytes and
 * speaks TLS to a TLS client and plain HTTP to any other (Jetty's {@link
 * DetectorConnectionFactory}), so one address serves both; what plain HTTP may do there is {@code
 * HttpsOnly}'s business. Stateless.
 */
final class HttpsConnector {

  private HttpsConnector() {}

  static ServerConnector create(
      Server server, HttpConfiguration http, ServerIdentity identity, String host, int port) {
    SecureRequestCustomizer secure = new SecureRequestCustomizer();
    // One certificate serves every name: a request for a name it does not cover is the browser's
    // to refuse, with its own words, not a 400 from the server.
    secure.setSniHostCheck(false);
    secure.setSniRequired(false);
    http.addCustomizer(secure);
    // The key store lives in memory only; its password protects nothing and is thrown away.
    char[] password = randomPassword();
    SslContextFactory.Server tls = new SslContextFactory.Server();
    tls.setKeyStore(identity.keyStore(password));
    tls.setKeyStorePassword(new String(password));
    tls.setSniRequired(false);
    HttpConnectionFactory plain = new HttpConnectionFactory(http);
    SslConnectionFactory ssl = new SslConnectionFactory(tls, plain.getProtocol());
    ServerConnector connector =
        new ServerConnector(server, new DetectorConnectionFactory(ssl), plain);
    connector.setHost(host);
    connector.setPort(port);
    return connector;
  }

  private static char[] randomPassword() {
    byte[] bytes = new byte[18];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes).toCharArray();
  }
}
