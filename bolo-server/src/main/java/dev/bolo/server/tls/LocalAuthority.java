package dev.bolo.server.tls;

import dev.bolo.server.ledger.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's own certificate authority, kept in a folder of the data directory: made once, then
 * used to issue the server's certificate for the names and addresses the gateway is reached at. A
 * phone trusts the authority once; a new server certificate (a new LAN address, one close to its
 * end) needs nothing more on the phone. The folder is 0700 and the keys 0600; only the authority's
 * certificate is ever served. Several gateways sharing a data directory take turns through a lock
 * file. Not thread safe: the composition root uses it once at start.
 */
final class LocalAuthority {

  private static final Logger log = LoggerFactory.getLogger(LocalAuthority.class);

  static final String CA_CERTIFICATE = "ca.crt";
  static final String CA_KEY = "ca.key";
  static final String SERVER_CERTIFICATE = "server.crt";
  static final String SERVER_KEY = "server.key";

  /** Ten years: the phones that trust it should not have to be set up again. */
  static final Duration AUTHORITY_LIFETIME = Duration.ofDays(3650);

  /**
   * Under Apple's 825 days, the longest an iPhone accepts a TLS server certificate from any
   * authority (its "requirements for trusted certificates in iOS 13"); a new one is issued at a
   * start once less than {@link #RENEW_BEFORE} is left, so a gateway restarted now and then never
   * serves an expired one.
   */
  static final Duration SERVER_LIFETIME = Duration.ofDays(800);

  static final Duration RENEW_BEFORE = Duration.ofDays(30);

  /** Clocks of a phone and the gateway may disagree; a certificate is valid an hour early. */
  private static final Duration BACKDATE = Duration.ofHours(1);

  private final Path dir;
  private final Clock clock;
  private final X509Certificate certificate;
  private final PrivateKey key;

  private LocalAuthority(Path dir, Clock clock, X509Certificate certificate, PrivateKey key) {
    this.dir = dir;
    this.clock = clock;
    this.certificate = certificate;
    this.key = key;
  }

  /**
   * The server's identity for {@code dnsNames} and {@code addresses}, issued by the authority of
   * {@code dir}: the one kept there when it covers them all and has a month left, else a new one
   * (kept for the next start). The authority is made first when {@code dir} has none.
   */
  static Issued serverIdentity(
      Path dir, Clock clock, List<String> dnsNames, List<InetAddress> addresses) {
    PrivateFiles.directory(dir);
    try (FileChannel channel =
            FileChannel.open(
                dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.lock()) {
      LocalAuthority authority = openOrCreate(dir, clock);
      return new Issued(
          authority.serverIdentity(dnsNames, addresses),
          new AuthorityCertificate(authority.certificate));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the gateway's certificates in " + dir, e);
    }
  }

  /** A server identity and the authority that issued it. */
  record Issued(ServerIdentity identity, AuthorityCertificate authority) {}

  private static LocalAuthority openOrCreate(Path dir, Clock clock) throws IOException {
    Path certificateFile = dir.resolve(CA_CERTIFICATE);
    Path keyFile = dir.resolve(CA_KEY);
    if (Files.exists(certificateFile) && Files.exists(keyFile)) {
      // Modes loosened by hand since the last start are put back, as the ledger's are.
      PrivateFiles.file(keyFile);
      X509Certificate certificate = PemFiles.certificates(certificateFile).getFirst();
      PrivateKey key = PemFiles.privateKey(keyFile);
      if (!Keys.belongTogether(key, certificate.getPublicKey())) {
        throw new IllegalStateException(
            keyFile + " is not the key of " + certificateFile + "; move both away to make anew");
      }
      if (certificate.getNotAfter().toInstant().isAfter(clock.instant().plus(RENEW_BEFORE))) {
        return new LocalAuthority(dir, clock, certificate, key);
      }
      log.warn(
          "the gateway's certificate authority in {} ends {}: making a new one, which phones must"
              + " trust anew (docs/connect-a-phone.md)",
          dir,
          certificate.getNotAfter().toInstant());
    }
    KeyPair keys = Keys.newKeyPair();
    Instant now = clock.instant();
    X500Name name =
        new X500NameBuilder(BCStyle.INSTANCE)
            .addRDN(BCStyle.O, "Bolo")
            .addRDN(
                BCStyle.CN, "Bolo local CA " + host() + LocalDate.ofInstant(now, ZoneOffset.UTC))
            .build();
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            name,
            serial(),
            Date.from(now.minus(BACKDATE)),
            Date.from(now.plus(AUTHORITY_LIFETIME)),
            name,
            keys.getPublic());
    JcaX509ExtensionUtils extensions = extensionUtils();
    // It signs server certificates only: no authority below it.
    add(builder, Extension.basicConstraints, true, new BasicConstraints(0));
    add(builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    add(
        builder,
        Extension.subjectKeyIdentifier,
        false,
        extensions.createSubjectKeyIdentifier(keys.getPublic()));
    X509Certificate certificate = sign(builder, keys.getPrivate());
    write(keyFile, PemFiles.text(keys.getPrivate()));
    write(certificateFile, PemFiles.text(certificate));
    // Made anew: the server certificate of an earlier authority is of no use.
    Files.deleteIfExists(dir.resolve(SERVER_CERTIFICATE));
    log.info("made the gateway's certificate authority in {}", dir);
    return new LocalAuthority(dir, clock, certificate, keys.getPrivate());
  }

  private ServerIdentity serverIdentity(List<String> dnsNames, List<InetAddress> addresses)
      throws IOException {
    Path certificateFile = dir.resolve(SERVER_CERTIFICATE);
    Path keyFile = dir.resolve(SERVER_KEY);
    if (Files.exists(certificateFile) && Files.exists(keyFile)) {
      PrivateFiles.file(keyFile);
      ServerIdentity kept;
      try {
        kept =
            new ServerIdentity(
                PemFiles.privateKey(keyFile),
                List.of(PemFiles.certificates(certificateFile).getFirst(), certificate));
      } catch (RuntimeException damaged) {
        // Half written when the machine stopped, say: the authority issues the pair again, as it
        // would an expired one, rather than keep the gateway from starting.
        kept = null;
        log.warn("issuing a new server certificate: the one kept cannot be read ({})", damaged);
      }
      String stale = kept == null ? null : whyReissue(kept, dnsNames, addresses);
      if (kept != null && stale == null) {
        return kept;
      }
      if (stale != null) {
        log.info("issuing a new server certificate: {}", stale);
      }
    }
    KeyPair keys = Keys.newKeyPair();
    Instant now = clock.instant();
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            certificate,
            serial(),
            Date.from(now.minus(BACKDATE)),
            Date.from(now.plus(SERVER_LIFETIME)),
            new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "Bolo")
                .addRDN(BCStyle.CN, ("Bolo gateway " + host()).strip())
                .build(),
            keys.getPublic());
    JcaX509ExtensionUtils extensions = extensionUtils();
    // What phones require of a server certificate (Apple's iOS 13 rules, Chrome's): not an
    // authority, a key for signing the handshake, the server-authentication purpose, and every
    // name in the subject alternative names (the common name is not read).
    add(builder, Extension.basicConstraints, true, new BasicConstraints(false));
    add(builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    add(
        builder,
        Extension.extendedKeyUsage,
        false,
        new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    add(builder, Extension.subjectAlternativeName, false, alternativeNames(dnsNames, addresses));
    add(
        builder,
        Extension.subjectKeyIdentifier,
        false,
        extensions.createSubjectKeyIdentifier(keys.getPublic()));
    add(
        builder,
        Extension.authorityKeyIdentifier,
        false,
        extensions.createAuthorityKeyIdentifier(certificate.getPublicKey()));
    X509Certificate issued = sign(builder, key);
    write(keyFile, PemFiles.text(keys.getPrivate()));
    write(certificateFile, PemFiles.text(issued));
    return new ServerIdentity(keys.getPrivate(), List.of(issued, certificate));
  }

  /** Why {@code kept} will not do, or null when it will. */
  private @org.jspecify.annotations.Nullable String whyReissue(
      ServerIdentity kept, List<String> dnsNames, List<InetAddress> addresses) {
    if (!isIssuedByThisAuthority(kept.certificate())) {
      return "the one kept was issued by another authority";
    }
    if (kept.notAfter().isBefore(clock.instant().plus(RENEW_BEFORE))) {
      return "the one kept ends " + kept.notAfter();
    }
    Set<String> missing = new HashSet<>(dnsNames);
    missing.removeAll(kept.dnsNames());
    List<InetAddress> missingAddresses = new ArrayList<>(addresses);
    missingAddresses.removeAll(kept.addresses());
    if (!missing.isEmpty() || !missingAddresses.isEmpty()) {
      List<String> all = new ArrayList<>(missing);
      missingAddresses.forEach(address -> all.add(address.getHostAddress()));
      return "the one kept does not cover " + String.join(", ", all);
    }
    return null;
  }

  private boolean isIssuedByThisAuthority(X509Certificate server) {
    try {
      server.verify(certificate.getPublicKey());
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static GeneralNames alternativeNames(List<String> dnsNames, List<InetAddress> addresses) {
    List<GeneralName> names = new ArrayList<>();
    dnsNames.forEach(name -> names.add(new GeneralName(GeneralName.dNSName, name)));
    addresses.forEach(
        address -> names.add(new GeneralName(GeneralName.iPAddress, address.getHostAddress())));
    return new GeneralNames(names.toArray(GeneralName[]::new));
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signingKey) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder(Keys.signatureAlgorithm(signingKey.getAlgorithm()))
                      .build(signingKey)));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a certificate", e);
    }
  }

  private static void add(
      X509v3CertificateBuilder builder,
      org.bouncycastle.asn1.ASN1ObjectIdentifier id,
      boolean critical,
      org.bouncycastle.asn1.ASN1Encodable value) {
    try {
      builder.addExtension(id, critical, value);
    } catch (CertIOException e) {
      throw new IllegalStateException("cannot encode the extension " + id, e);
    }
  }

  private static JcaX509ExtensionUtils extensionUtils() {
    try {
      return new JcaX509ExtensionUtils();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has SHA-1 for key identifiers", e);
    }
  }

  /** A positive random serial of 128 bits, as CAs use (CA/Browser Forum: at least 64 random). */
  private static BigInteger serial() {
    return new BigInteger(128, new SecureRandom());
  }

  /** The host name and a space, so that a person tells two machines' authorities apart. */
  private static String host() {
    String name = LanAddresses.hostName();
    return name == null ? "" : name + " ";
  }

  private static void write(Path file, String pem) {
    PrivateFiles.write(file, pem.getBytes(StandardCharsets.US_ASCII));
  }
}
