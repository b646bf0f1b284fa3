package dev.bolo.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.bolo.server.testing.Browser;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a thief of the gateway's authority key could do to a phone that trusts the authority, tried
 * on the phone's kind of browser: Chromium, trusting the authority as a phone does once its owner
 * installed it (a certificate store of its own), refuses a certificate for another site made with
 * the key, and opens the gateway's own. The certificates are checked against the real time, as a
 * browser checks them.
 */
class ForgedCertificateTest {

  private static final String PAGE = "served with this certificate";

  @TempDir Path dir;

  private final List<HttpsServer> servers = new ArrayList<>();

  @AfterEach
  void stopServers() {
    servers.forEach(server -> server.stop(0));
  }

  @Test
  void aPhoneTrustingTheAuthorityRefusesABanksCertificateMadeWithItsKeyAndOpensTheGateways()
      throws Exception {
    Clock clock = Clock.systemUTC();
    InetAddress loopback = Objects.requireNonNull(LanAddresses.literal("127.0.0.1"));
    LocalAuthority.Issued gateway =
        LocalAuthority.serverIdentity(dir, clock, List.of("localhost"), List.of(loopback));
    ServerIdentity forged =
        HandMadeCertificates.serverIdentity(
            gateway.identity().chain().getLast(),
            PemFiles.privateKey(dir.resolve(LocalAuthority.CA_KEY)),
            clock.instant(),
            List.of("DNS:bank.example"));
    int bank = serve(forged);
    int own = serve(gateway.identity());

    try (Browser phone =
        Browser.trusting(
            dir.resolve(LocalAuthority.CA_CERTIFICATE), Map.of("bank.example", "127.0.0.1"))) {
      phone.open("https://bank.example:" + bank + "/");
      String refused = phone.driver().getPageSource();
      phone.open("https://localhost:" + own + "/");
      String opened = phone.driver().getPageSource();

      assertThat(refused).doesNotContain(PAGE).contains("ERR_CERT");
      assertThat(opened).contains(PAGE);
    }
  }

  /** Serves a page over HTTPS with {@code identity} on loopback; returns its port. */
  private int serve(ServerIdentity identity) throws IOException, GeneralSecurityException {
    char[] password = "test".toCharArray();
    KeyStore store = identity.keyStore(password);
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(LanAddresses.literal("127.0.0.1"), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(context));
    server.createContext(
        "/",
        exchange -> {
          byte[] body = ("<p>" + PAGE + "</p>").getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    servers.add(server);
    return server.getAddress().getPort();
  }
}
