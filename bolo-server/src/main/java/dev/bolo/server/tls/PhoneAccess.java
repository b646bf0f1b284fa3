package dev.bolo.server.tls;

import java.net.InetAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Where a phone on the LAN opens the gateway's dictation page, and what it must trust first: the
 * URLs the dashboard offers in its QR code and the start-up log prints. Built once from where the
 * gateway listens and its TLS; the addresses are read anew on every call. Thread safe.
 */
public final class PhoneAccess {

  /** Where the steps are written out for a person. */
  public static final String GUIDE = "docs/connect-a-phone.md";

  /** Where the gateway serves its own authority's certificate. */
  public static final String AUTHORITY_PATH = "/ca.crt";

  private final String listenHost;
  private final @Nullable GatewayTls tls;

  private PhoneAccess(String listenHost, @Nullable GatewayTls tls) {
    this.listenHost = listenHost;
    this.tls = tls;
  }

  /** For a gateway listening on {@code listenHost} with {@code tls} (null: plain HTTP). */
  public static PhoneAccess of(String listenHost, @Nullable GatewayTls tls) {
    return new PhoneAccess(listenHost, tls);
  }

  /** Whether the page is served over HTTPS, which a phone's browser needs to record. */
  public boolean isSecure() {
    return tls != null;
  }

  /** The gateway's own authority, which a phone must trust; null when there is none. */
  public @Nullable AuthorityCertificate authority() {
    return tls == null ? null : tls.authority();
  }

  /** Whether a phone on the LAN can reach the gateway at all: it does not listen on loopback. */
  public boolean isReachable() {
    return !LanAddresses.isLoopback(listenHost);
  }

  /**
   * The dictation page's URLs a phone may open, best first; empty when the gateway listens on
   * loopback only. With the operator's certificate, its host names; with the gateway's own, the LAN
   * addresses it covers; without TLS, the LAN addresses.
   */
  public List<URI> pageUrls(int port) {
    if (!isReachable()) {
      return List.of();
    }
    List<String> hosts = new ArrayList<>();
    if (!LanAddresses.isWildcard(listenHost) && LanAddresses.literal(listenHost) == null) {
      // It listens on the address of a name: the name is what a phone opens.
      return List.of(url(listenHost, port));
    }
    if (tls != null && tls.authority() == null) {
      tls.identity().dnsNames().stream()
          .filter(name -> !name.startsWith("*.") && !name.equalsIgnoreCase("localhost"))
          .forEach(hosts::add);
      if (!hosts.isEmpty()) {
        return hosts.stream().map(host -> url(host, port)).toList();
      }
    }
    for (InetAddress address : addresses()) {
      if (tls == null || tls.identity().addresses().contains(address)) {
        hosts.add(LanAddresses.urlHost(address));
      }
    }
    return hosts.stream().map(host -> url(host, port)).toList();
  }

  /** What the start-up log tells the operator about phones, one line each; may be empty. */
  public List<String> advice(int port) {
    List<String> lines = new ArrayList<>();
    if (tls == null) {
      if (isReachable()) {
        lines.add(
            "a phone's browser records only from a page served over HTTPS: start with --tls"
                + " (BOLO_TLS=on), see "
                + GUIDE);
      }
      return lines;
    }
    if (!isReachable()) {
      lines.add(
          "HTTPS on "
              + listenHost
              + " only: a phone on the LAN cannot reach it; set BOLO_HOST=0.0.0.0 (see "
              + GUIDE
              + ")");
      return lines;
    }
    List<URI> urls = pageUrls(port);
    if (urls.isEmpty()) {
      lines.add("no LAN address found for phones; set BOLO_TLS_NAMES to the address they use");
      return lines;
    }
    lines.add(
        "on a phone, open "
            + urls.getFirst()
            + (urls.size() > 1 ? " (or " + others(urls) + ")" : ""));
    AuthorityCertificate authority = authority();
    if (authority != null) {
      lines.add(
          "first trust this gateway's certificate authority on the phone: open "
              + urls.getFirst().resolve(AUTHORITY_PATH)
              + " there and install it (SHA-256 "
              + authority.sha256Fingerprint()
              + "); see "
              + GUIDE);
    }
    lines.add(
        "the dashboard's \"Add a device\" shows a QR code that opens the page with the token");
    return lines;
  }

  private List<InetAddress> addresses() {
    if (LanAddresses.isWildcard(listenHost)) {
      return LanAddresses.current();
    }
    InetAddress literal = LanAddresses.literal(listenHost);
    return literal == null ? List.of() : List.of(literal);
  }

  private URI url(String host, int port) {
    String scheme = tls == null ? "http" : "https";
    boolean usual = port == (tls == null ? 80 : 443);
    return URI.create(
        scheme + "://" + host.toLowerCase(Locale.ROOT) + (usual ? "" : ":" + port) + "/");
  }

  private static String others(List<URI> urls) {
    return String.join(", ", urls.subList(1, urls.size()).stream().map(URI::toString).toList());
  }
}
