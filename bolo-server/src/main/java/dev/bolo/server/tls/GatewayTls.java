package dev.bolo.server.tls;

import java.net.InetAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's TLS as configured: its identity (the operator's certificate, or one issued by the
 * gateway's own authority for this machine's names and LAN addresses) and, for the latter, the
 * authority's certificate that phones install. Immutable.
 */
public final class GatewayTls {

  private static final Logger log = LoggerFactory.getLogger(GatewayTls.class);

  /** The folder of the data directory that holds the gateway's own authority and certificate. */
  public static final String FOLDER = "tls";

  private final ServerIdentity identity;
  private final @Nullable AuthorityCertificate authority;

  private GatewayTls(ServerIdentity identity, @Nullable AuthorityCertificate authority) {
    this.identity = identity;
    this.authority = authority;
  }

  /**
   * The TLS of {@code config}, or null when it is off. The gateway's own authority is kept in the
   * folder {@value #FOLDER} of {@code dataDir}; its server certificate covers localhost, this
   * machine's name and addresses, {@code listenHost} and the configured extra names.
   *
   * @throws IllegalArgumentException when the operator's files cannot be read or do not match
   */
  public static @Nullable GatewayTls prepare(
      TlsConfig config, Path dataDir, String listenHost, Clock clock) {
    if (!config.isOn()) {
      return null;
    }
    Path certificate = config.certificate();
    Path key = config.key();
    if (certificate != null && key != null) {
      ServerIdentity identity =
          new ServerIdentity(PemFiles.privateKey(key), PemFiles.certificates(certificate));
      if (identity.notAfter().isBefore(clock.instant())) {
        log.warn(
            "the certificate in {} ended {}: clients will refuse it",
            certificate,
            identity.notAfter());
      }
      return new GatewayTls(identity, null);
    }
    List<String> dnsNames = new ArrayList<>(List.of("localhost"));
    String host = LanAddresses.hostName();
    if (host != null) {
      // Phones find a machine by its name in .local through multicast DNS (Avahi, Bonjour).
      addNew(dnsNames, host);
      addNew(dnsNames, host.contains(".") ? host : host + ".local");
    }
    List<InetAddress> addresses = new ArrayList<>();
    addNew(addresses, Objects.requireNonNull(LanAddresses.literal("127.0.0.1")));
    addNew(addresses, Objects.requireNonNull(LanAddresses.literal("::1")));
    LanAddresses.current().forEach(address -> addNew(addresses, address));
    List<String> more = new ArrayList<>(config.names());
    if (!LanAddresses.isWildcard(listenHost)) {
      more.add(listenHost);
    }
    for (String name : more) {
      InetAddress address = LanAddresses.literal(name);
      if (address != null) {
        addNew(addresses, address);
      } else {
        addNew(dnsNames, name.toLowerCase(java.util.Locale.ROOT));
      }
    }
    LocalAuthority.Issued issued =
        LocalAuthority.serverIdentity(dataDir.resolve(FOLDER), clock, dnsNames, addresses);
    return new GatewayTls(issued.identity(), issued.authority());
  }

  /** A connector of {@code server} on {@code host}:{@code port} that speaks TLS and plain HTTP. */
  public ServerConnector connector(Server server, HttpConfiguration http, String host, int port) {
    return HttpsConnector.create(server, http, identity, host, port);
  }

  /** The gateway's own authority, whose certificate phones install; null with the operator's. */
  public @Nullable AuthorityCertificate authority() {
    return authority;
  }

  /** The certificate the gateway shows. */
  public X509Certificate certificate() {
    return identity.certificate();
  }

  ServerIdentity identity() {
    return identity;
  }

  private static <T> void addNew(List<T> list, T item) {
    if (!list.contains(item)) {
      list.add(item);
    }
  }
}
