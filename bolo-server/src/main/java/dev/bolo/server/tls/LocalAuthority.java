package dev.bolo.server.tls;

import dev.bolo.server.ledger.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's own certificate authority, kept in a folder of the data directory: made once, then
 * used to issue the server's certificate for the names and addresses the gateway is reached at. A
 * phone trusts the authority once; a new server certificate (a new LAN address, one close to its
 * end) needs nothing more on the phone. The authority may sign only for the gateway's names and LAN
 * ranges ({@link AuthorityScope}), so its key is of no use against other sites. The folder is 0700
 * and the keys 0600; only the authority's certificate is ever served. Several gateways sharing a
 * data directory take turns through a lock file. Not thread safe: the composition root uses it once
 * at start.
 */
final class LocalAuthority {

  private static final Logger log = LoggerFactory.getLogger(LocalAuthority.class);

  static final String CA_CERTIFICATE = "ca.crt";
  static final String CA_KEY = "ca.key";
  static final String SERVER_CERTIFICATE = "server.crt";
  static final String SERVER_KEY = "server.key";

  /**
   * Two years. The name constraints keep a copy of the key (in a backup, on a disk given away) from
   * being used against other sites; the lifetime bounds how long it is of use at all against the
   * gateway's own names, while a person installs a new authority on each phone no more often than
   * every two years.
   */
  static final Duration AUTHORITY_LIFETIME = Duration.ofDays(730);

  /**
   * 397 days: the longest browsers accept from a public authority (the CA/Browser Forum's baseline
   * requirements, Apple's and Chrome's rules since 2020), well under the 825 days an iPhone accepts
   * from any authority (Apple's "requirements for trusted certificates in iOS 13"), and never past
   * the authority's own end. A new one is issued at a start once less than {@link #RENEW_BEFORE} is
   * left, so a gateway restarted now and then never serves an expired one.
   */
  static final Duration SERVER_LIFETIME = Duration.ofDays(397);

  static final Duration RENEW_BEFORE = Duration.ofDays(30);

  /**
   * From this long before the authority is replaced, every start says so: the operator can make a
   * new one at a time that suits the phones' owners rather than the day a restart happens to fall.
   */
  static final Duration ROTATION_NOTICE = Duration.ofDays(90);

  /** Clocks of a phone and the gateway may disagree; a certificate is valid an hour early. */
  private static final Duration BACKDATE = Duration.ofHours(1);

  private final Path dir;
  private final Clock clock;
  private final X509Certificate certificate;
  private final PrivateKey key;
  private final AuthorityScope scope;

  private LocalAuthority(Path dir, Clock clock, X509Certificate certificate, PrivateKey key) {
    this.dir = dir;
    this.clock = clock;
    this.certificate = certificate;
    this.key = key;
    this.scope = AuthorityScope.of(certificate);
  }

  /**
   * The server's identity for {@code dnsNames} and {@code addresses}, issued by the authority of
   * {@code dir}: the one kept there when it covers them all and has a month left, else a new one
   * (kept for the next start). The authority is made first when {@code dir} has none, for these
   * names and the LAN ranges; a name or address it may not sign for is left out of the server
   * certificate, with a warning.
   */
  static Issued serverIdentity(
      Path dir, Clock clock, List<String> dnsNames, List<InetAddress> addresses) {
    PrivateFiles.directory(dir);
    try (FileChannel channel =
            FileChannel.open(
                dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.lock()) {
      LocalAuthority authority = openOrCreate(dir, clock, dnsNames, addresses);
      return new Issued(
          authority.serverIdentity(dnsNames, addresses),
          new AuthorityCertificate(authority.certificate));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the gateway's certificates in " + dir, e);
    }
  }

  /** A server identity and the authority that issued it. */
  record Issued(ServerIdentity identity, AuthorityCertificate authority) {}

  private static LocalAuthority openOrCreate(
      Path dir, Clock clock, List<String> dnsNames, List<InetAddress> addresses)
      throws IOException {
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
      Instant end = certificate.getNotAfter().toInstant();
      if (end.isAfter(clock.instant().plus(RENEW_BEFORE))) {
        LocalAuthority kept = new LocalAuthority(dir, clock, certificate, key);
        kept.warnOfItsLimits(end);
        return kept;
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
            Certificates.serial(),
            Date.from(now.minus(BACKDATE)),
            Date.from(now.plus(AUTHORITY_LIFETIME)),
            name,
            keys.getPublic());
    JcaX509ExtensionUtils extensions = Certificates.keyIdentifiers();
    // It signs server certificates only: no authority below it.
    Certificates.extension(builder, Extension.basicConstraints, true, new BasicConstraints(0));
    Certificates.extension(
        builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    // Critical, as RFC 5280 requires of name constraints: a client that cannot read them refuses
    // the authority rather than trusting it for every name.
    Certificates.extension(
        builder,
        Extension.nameConstraints,
        true,
        AuthorityScope.forGateway(dnsNames, addresses).extension());
    Certificates.extension(
        builder,
        Extension.subjectKeyIdentifier,
        false,
        extensions.createSubjectKeyIdentifier(keys.getPublic()));
    X509Certificate certificate = Certificates.sign(builder, keys.getPrivate());
    write(keyFile, PemFiles.text(keys.getPrivate()));
    write(certificateFile, PemFiles.text(certificate));
    // Made anew: the server certificate of an earlier authority is of no use.
    Files.deleteIfExists(dir.resolve(SERVER_CERTIFICATE));
    log.info("made the gateway's certificate authority in {}", dir);
    return new LocalAuthority(dir, clock, certificate, keys.getPrivate());
  }

  /**
   * Warns of an authority kept from an older Bolo, which may sign any name, and of one whose end is
   * near. It is kept either way: a new one would stop every phone that trusts this one until a
   * person installs the new one on it, which the operator should choose the time of.
   */
  private void warnOfItsLimits(Instant end) {
    if (!scope.isLimited()) {
      log.warn(
          "the gateway's certificate authority in {} was made by an older Bolo and may sign any"
              + " name: whoever copies its key can impersonate any web site to the phones that"
              + " trust it. It is kept so that those phones keep working; replace it when their"
              + " owners can install a new one ({}, \"A new authority\")",
          dir,
          PhoneAccess.GUIDE);
    }
    if (end.isBefore(clock.instant().plus(ROTATION_NOTICE))) {
      log.warn(
          "the gateway's certificate authority in {} ends {}: a start after {} makes a new one,"
              + " which each phone must install; to choose the day, see {}, \"A new authority\"",
          dir,
          end,
          end.minus(RENEW_BEFORE),
          PhoneAccess.GUIDE);
    }
  }

  private ServerIdentity serverIdentity(List<String> wantedNames, List<InetAddress> wantedAddresses)
      throws IOException {
    List<String> dnsNames = wantedNames.stream().filter(scope::permits).toList();
    List<InetAddress> addresses = wantedAddresses.stream().filter(scope::permits).toList();
    List<String> outside = scope.outside(wantedNames, wantedAddresses);
    if (!outside.isEmpty()) {
      // A certificate that named them would be refused by phones for every name it carries.
      log.warn(
          "the server certificate leaves out {}: the gateway's certificate authority in {} may sign"
              + " only for the names and LAN ranges it was made for; to add these, make a new"
              + " authority ({}, \"A new authority\")",
          String.join(", ", outside),
          dir,
          PhoneAccess.GUIDE);
    }
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
            Certificates.serial(),
            Date.from(now.minus(BACKDATE)),
            Date.from(earliest(now.plus(SERVER_LIFETIME), certificate.getNotAfter().toInstant())),
            new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "Bolo")
                .addRDN(BCStyle.CN, ("Bolo gateway " + host()).strip())
                .build(),
            keys.getPublic());
    JcaX509ExtensionUtils extensions = Certificates.keyIdentifiers();
    // What phones require of a server certificate (Apple's iOS 13 rules, Chrome's): not an
    // authority, a key for signing the handshake, the server-authentication purpose, and every
    // name in the subject alternative names (the common name is not read).
    Certificates.extension(builder, Extension.basicConstraints, true, new BasicConstraints(false));
    Certificates.extension(
        builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    Certificates.extension(
        builder,
        Extension.extendedKeyUsage,
        false,
        new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    Certificates.extension(
        builder, Extension.subjectAlternativeName, false, alternativeNames(dnsNames, addresses));
    Certificates.extension(
        builder,
        Extension.subjectKeyIdentifier,
        false,
        extensions.createSubjectKeyIdentifier(keys.getPublic()));
    Certificates.extension(
        builder,
        Extension.authorityKeyIdentifier,
        false,
        extensions.createAuthorityKeyIdentifier(certificate.getPublicKey()));
    X509Certificate issued = Certificates.sign(builder, key);
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

  private static Instant earliest(Instant one, Instant other) {
    return one.isBefore(other) ? one : other;
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

  /** The host name and a space, so that a person tells two machines' authorities apart. */
  private static String host() {
    String name = LanAddresses.hostName();
    return name == null ? "" : name + " ";
  }

  private static void write(Path file, String pem) {
    PrivateFiles.write(file, pem.getBytes(StandardCharsets.US_ASCII));
  }
}
