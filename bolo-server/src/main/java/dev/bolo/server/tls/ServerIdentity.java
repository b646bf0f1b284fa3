package dev.bolo.server.tls;

import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What the gateway shows a TLS client: its private key and its certificate chain (the server's
 * certificate first). Immutable; the key never leaves it but through {@link #keyStore}.
 */
public final class ServerIdentity {

  /** Subject alternative name types of RFC 5280 as the JDK numbers them. */
  private static final int DNS_NAME = 2;

  private static final int IP_ADDRESS = 7;

  private final PrivateKey key;
  private final List<X509Certificate> chain;

  ServerIdentity(PrivateKey key, List<X509Certificate> chain) {
    this.key = Objects.requireNonNull(key, "key");
    this.chain = List.copyOf(chain);
    if (this.chain.isEmpty()) {
      throw new IllegalArgumentException("a server identity needs its certificate");
    }
    if (!Keys.belongTogether(key, certificate().getPublicKey())) {
      throw new IllegalArgumentException(
          "the private key is not the key of the certificate "
              + certificate().getSubjectX500Principal());
    }
  }

  /** The server's own certificate. */
  public X509Certificate certificate() {
    return chain.getFirst();
  }

  public List<X509Certificate> chain() {
    return chain;
  }

  public Instant notAfter() {
    return certificate().getNotAfter().toInstant();
  }

  /** The host names the certificate is valid for, wildcards included, in its order. */
  public List<String> dnsNames() {
    List<String> names = new ArrayList<>();
    for (List<?> name : alternativeNames()) {
      if (name.get(0) instanceof Integer type && type == DNS_NAME) {
        names.add(String.valueOf(name.get(1)));
      }
    }
    return List.copyOf(names);
  }

  /** The addresses the certificate is valid for, in its order. */
  public List<InetAddress> addresses() {
    List<InetAddress> addresses = new ArrayList<>();
    for (List<?> name : alternativeNames()) {
      if (name.get(0) instanceof Integer type && type == IP_ADDRESS) {
        InetAddress address = LanAddresses.literal(String.valueOf(name.get(1)));
        if (address != null) {
          addresses.add(address);
        }
      }
    }
    return List.copyOf(addresses);
  }

  /** A key store in memory holding the key and chain under {@code password}, as Jetty takes it. */
  KeyStore keyStore(char[] password) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, password);
      store.setKeyEntry("bolo", key, password, chain.toArray(Certificate[]::new));
      return store;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot hold the server's key in a key store", e);
    }
  }

  private Collection<List<?>> alternativeNames() {
    try {
      Collection<List<?>> names = certificate().getSubjectAlternativeNames();
      return names == null ? List.of() : names;
    } catch (CertificateParsingException e) {
      throw new IllegalArgumentException("unreadable subject alternative names", e);
    }
  }
}
