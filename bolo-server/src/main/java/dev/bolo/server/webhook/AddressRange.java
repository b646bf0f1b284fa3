package dev.bolo.server.webhook;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;

/**
 * The address ranges a webhook is never sent into, each with the words that name it in a refusal:
 * the gateway's own machine, the networks behind it, the cloud's metadata service, and addresses
 * that are not one host's on the internet (IANA's special-purpose registries, RFC 6890, for IPv4
 * and IPv6). As OWASP's SSRF prevention cheat sheet advises, the check is on the address a name
 * resolved to, never on the name; an IPv6 address that carries an IPv4 one (mapped, compatible,
 * NAT64, 6to4) is judged by the IPv4 address inside. Immutable.
 */
enum AddressRange {
  UNSPECIFIED("an unspecified address (0.0.0.0 or ::), which reaches this machine"),
  THIS_NETWORK("in 0.0.0.0/8, \"this network\""),
  LOOPBACK("a loopback address, this machine itself"),
  PRIVATE("a private network address (RFC 1918: 10/8, 172.16/12, 192.168/16)"),
  SHARED("a carrier-grade NAT address (100.64/10, RFC 6598)"),
  METADATA("the cloud metadata service's address"),
  LINK_LOCAL("a link-local address (169.254/16, fe80::/10)"),
  UNIQUE_LOCAL("an IPv6 unique local address (fc00::/7), a private network's"),
  SITE_LOCAL("an IPv6 site-local address (fec0::/10), a private network's"),
  PROTOCOL("an address the IETF reserves for protocols (192.0.0/24)"),
  DOCUMENTATION("a documentation address (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32)"),
  BENCHMARK("a benchmarking address (198.18/15, 2001:2::/48)"),
  MULTICAST("a multicast address"),
  RESERVED("a reserved address (240/4, 255.255.255.255, 100::/64, 2001::/23 assignments)");

  /** The words that follow "resolves to …" in the client's 400. */
  final String description;

  AddressRange(String description) {
    this.description = description;
  }

  /** The range {@code address} lies in that a webhook is never sent into; empty when none. */
  static Optional<AddressRange> of(InetAddress address) {
    byte[] bytes = address.getAddress();
    return switch (address) {
      case Inet4Address v4 -> ofIpv4(bytes);
      case Inet6Address v6 -> ofIpv6(bytes);
      default -> Optional.of(RESERVED);
    };
  }

  private static Optional<AddressRange> ofIpv4(byte[] a) {
    int b0 = a[0] & 0xff;
    int b1 = a[1] & 0xff;
    int b2 = a[2] & 0xff;
    int b3 = a[3] & 0xff;
    // The ladder runs from the most specific range to the widest, so that 169.254.169.254 is named
    // as the metadata service and 0.0.0.0 as unspecified rather than as their enclosing ranges.
    if (b0 == 0 && b1 == 0 && b2 == 0 && b3 == 0) {
      return Optional.of(UNSPECIFIED);
    }
    if (b0 == 169 && b1 == 254 && b2 == 169 && b3 == 254) {
      // AWS, GCP, Azure, DigitalOcean and OpenStack all serve instance credentials here.
      return Optional.of(METADATA);
    }
    if (b0 == 255 && b1 == 255 && b2 == 255 && b3 == 255) {
      return Optional.of(RESERVED);
    }
    if (b0 == 0) {
      return Optional.of(THIS_NETWORK);
    }
    if (b0 == 127) {
      return Optional.of(LOOPBACK);
    }
    if (b0 == 10 || (b0 == 172 && (b1 & 0xf0) == 16) || (b0 == 192 && b1 == 168)) {
      return Optional.of(PRIVATE);
    }
    if (b0 == 100 && (b1 & 0xc0) == 64) {
      return Optional.of(SHARED);
    }
    if (b0 == 169 && b1 == 254) {
      return Optional.of(LINK_LOCAL);
    }
    if (b0 == 192 && b1 == 0 && b2 == 0) {
      return Optional.of(PROTOCOL);
    }
    if ((b0 == 192 && b1 == 0 && b2 == 2)
        || (b0 == 198 && b1 == 51 && b2 == 100)
        || (b0 == 203 && b1 == 0 && b2 == 113)) {
      return Optional.of(DOCUMENTATION);
    }
    if (b0 == 198 && (b1 & 0xfe) == 18) {
      return Optional.of(BENCHMARK);
    }
    if ((b0 & 0xf0) == 224) {
      return Optional.of(MULTICAST);
    }
    if ((b0 & 0xf0) == 240) {
      return Optional.of(RESERVED);
    }
    return Optional.empty();
  }

  private static Optional<AddressRange> ofIpv6(byte[] a) {
    if (isZero(a, 0, 16)) {
      return Optional.of(UNSPECIFIED);
    }
    if (isZero(a, 0, 15) && a[15] == 1) {
      return Optional.of(LOOPBACK);
    }
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated): the IPv4 address is the
    // one a dual-stack socket reaches.
    if (isZero(a, 0, 10) && ((a[10] == (byte) 0xff && a[11] == (byte) 0xff) || isZero(a, 10, 2))) {
      return ofIpv4(slice(a, 12));
    }
    // 64:ff9b::/96, the NAT64 well-known prefix (RFC 6052): a translator reaches the IPv4 inside.
    if (a[0] == 0
        && a[1] == 0x64
        && a[2] == (byte) 0xff
        && a[3] == (byte) 0x9b
        && isZero(a, 4, 8)) {
      return ofIpv4(slice(a, 12));
    }
    // 2002::/16, 6to4 (RFC 3056): the relay reaches the IPv4 address in bytes 2 to 5.
    if (a[0] == 0x20 && a[1] == 0x02) {
      return ofIpv4(slice(a, 2));
    }
    int b0 = a[0] & 0xff;
    int b1 = a[1] & 0xff;
    if (b0 == 0xff) {
      return Optional.of(MULTICAST);
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
      return Optional.of(LINK_LOCAL);
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
      return Optional.of(SITE_LOCAL);
    }
    if ((b0 & 0xfe) == 0xfc) {
      // AWS's IPv6 metadata service, fd00:ec2::254, is in here too.
      return Optional.of(UNIQUE_LOCAL);
    }
    if (b0 == 0x20 && b1 == 0x01 && a[2] == 0x0d && a[3] == (byte) 0xb8) {
      return Optional.of(DOCUMENTATION);
    }
    if (b0 == 0x20 && b1 == 0x01 && a[2] == 0 && a[3] == 0x02 && a[4] == 0 && a[5] == 0) {
      return Optional.of(BENCHMARK);
    }
    // 2001::/23, IETF protocol assignments, Teredo (2001::/32) among them, whose IPv4 addresses
    // are hidden; 100::/64, discard-only. Nothing a receiver lives at.
    if (b0 == 0x20 && b1 == 0x01 && (a[2] & 0xfe) == 0) {
      return Optional.of(RESERVED);
    }
    if (b0 == 0x01 && b1 == 0 && isZero(a, 2, 6)) {
      return Optional.of(RESERVED);
    }
    // Beyond 2000::/3, global unicast, nothing is assigned to hosts.
    if ((b0 & 0xe0) != 0x20) {
      return Optional.of(RESERVED);
    }
    return Optional.empty();
  }

  private static boolean isZero(byte[] a, int from, int length) {
    for (int i = from; i < from + length; i++) {
      if (a[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static byte[] slice(byte[] a, int from) {
    byte[] v4 = new byte[4];
    System.arraycopy(a, from, v4, 0, 4);
    return v4;
  }
}
