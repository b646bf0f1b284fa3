package dev.bolo.server.tls;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraintValidatorException;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.asn1.x509.PKIXNameConstraintValidator;
import org.jspecify.annotations.Nullable;

/**
 * The names a certificate authority of the gateway's own may sign for, written into its certificate
 * as critical name constraints (RFC 5280, section 4.2.1.10), which phones' browsers enforce on an
 * authority their owner installed: the gateway's host names (and names below them) and the
 * addresses of the ranges a LAN uses, plus any other address the gateway had when the authority was
 * made. A copy of the authority's key then cannot make a certificate a trusting phone accepts for a
 * bank, a mail server or any other site. An authority made before Bolo wrote constraints has none:
 * it may sign any name. Immutable.
 */
final class AuthorityScope {

  /**
   * Address ranges that stay on a LAN, whatever network the computer joins: the private IPv4 ranges
   * of RFC 1918, IPv4 loopback (RFC 1122), IPv6 loopback and unique local addresses (RFC 4193). A
   * laptop that moves from a home's 192.168.1.x to an office's 10.x stays covered; no public site
   * is reached at them.
   */
  private static final List<GeneralSubtree> LAN_RANGES =
      List.of(
          range("10.0.0.0", 8),
          range("172.16.0.0", 12),
          range("192.168.0.0", 16),
          range("127.0.0.0", 8),
          range("::1", 128),
          range("fc00::", 7));

  /**
   * The subnet of an IPv6 address outside those ranges (a global one): a LAN's IPv6 subnet is a /64
   * (RFC 4291), in which the machine's temporary addresses change (RFC 8981). A public IPv4 address
   * is taken alone: the addresses beside it are other people's.
   */
  private static final int IPV6_SUBNET_BITS = 64;

  private static final int IPV4_BITS = 32;

  private final @Nullable NameConstraints constraints;

  private AuthorityScope(@Nullable NameConstraints constraints) {
    this.constraints = constraints;
  }

  /**
   * The scope of a new authority for a gateway reached at {@code dnsNames} and {@code addresses}:
   * those names, the LAN ranges, and each address outside them (a global IPv6 address with its
   * /64).
   */
  static AuthorityScope forGateway(List<String> dnsNames, List<InetAddress> addresses) {
    List<GeneralSubtree> permitted = new ArrayList<>();
    dnsNames.forEach(
        name -> permitted.add(new GeneralSubtree(new GeneralName(GeneralName.dNSName, name))));
    permitted.addAll(LAN_RANGES);
    AuthorityScope lan = new AuthorityScope(constraintsOf(permitted));
    for (InetAddress address : addresses) {
      if (!lan.permits(address)) {
        permitted.add(
            range(address, address instanceof Inet4Address ? IPV4_BITS : IPV6_SUBNET_BITS));
      }
    }
    return new AuthorityScope(constraintsOf(permitted));
  }

  /** The scope written in {@code authority}'s certificate; any name when it carries none. */
  static AuthorityScope of(X509Certificate authority) {
    byte[] extension = authority.getExtensionValue(Extension.nameConstraints.getId());
    if (extension == null) {
      return new AuthorityScope(null);
    }
    return new AuthorityScope(
        NameConstraints.getInstance(ASN1OctetString.getInstance(extension).getOctets()));
  }

  /** Whether the authority may sign for some names only; false for one made without constraints. */
  boolean isLimited() {
    return constraints != null;
  }

  /** The constraints to write into the authority's certificate, marked critical. */
  NameConstraints extension() {
    return Objects.requireNonNull(
        constraints, "an authority without constraints has none to write");
  }

  /** Whether a server certificate of the authority may carry the host name {@code dnsName}. */
  boolean permits(String dnsName) {
    return permits(new GeneralName(GeneralName.dNSName, dnsName));
  }

  /** Whether a server certificate of the authority may carry {@code address}. */
  boolean permits(InetAddress address) {
    return permits(
        new GeneralName(GeneralName.iPAddress, new DEROctetString(address.getAddress())));
  }

  /** Of {@code dnsNames} and {@code addresses}, those the authority may not sign for, as text. */
  List<String> outside(List<String> dnsNames, List<InetAddress> addresses) {
    List<String> outside = new ArrayList<>();
    dnsNames.stream().filter(name -> !permits(name)).forEach(outside::add);
    addresses.stream()
        .filter(address -> !permits(address))
        .forEach(address -> outside.add(address.getHostAddress()));
    return List.copyOf(outside);
  }

  private boolean permits(GeneralName name) {
    if (constraints == null) {
      return true;
    }
    // BouncyCastle's RFC 5280 matching: a DNS name matches a constraint and the names below it;
    // an address, the constraint's address under its mask.
    PKIXNameConstraintValidator validator = new PKIXNameConstraintValidator();
    GeneralSubtree[] permitted = constraints.getPermittedSubtrees();
    if (permitted != null) {
      validator.intersectPermittedSubtree(permitted);
    }
    GeneralSubtree[] excluded = constraints.getExcludedSubtrees();
    if (excluded != null) {
      for (GeneralSubtree subtree : excluded) {
        validator.addExcludedSubtree(subtree);
      }
    }
    try {
      validator.checkPermitted(name);
      validator.checkExcluded(name);
      return true;
    } catch (NameConstraintValidatorException outside) {
      return false;
    }
  }

  private static NameConstraints constraintsOf(List<GeneralSubtree> permitted) {
    return new NameConstraints(permitted.toArray(GeneralSubtree[]::new), null);
  }

  private static GeneralSubtree range(String literal, int prefixBits) {
    return range(Objects.requireNonNull(LanAddresses.literal(literal), literal), prefixBits);
  }

  /**
   * An address range as a name constraint writes it: the network's address, then its mask, as one
   * octet string (8 bytes for IPv4, 32 for IPv6).
   */
  private static GeneralSubtree range(InetAddress address, int prefixBits) {
    byte[] bytes = address.getAddress();
    byte[] value = new byte[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      int bits = Math.clamp(prefixBits - 8L * i, 0, 8);
      byte mask = (byte) (0xff00 >> bits);
      value[i] = (byte) (bytes[i] & mask);
      value[bytes.length + i] = mask;
    }
    return new GeneralSubtree(new GeneralName(GeneralName.iPAddress, new DEROctetString(value)));
  }
}
