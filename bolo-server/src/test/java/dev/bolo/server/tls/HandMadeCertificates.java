package dev.bolo.server.tls;

import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;

/**
 * Certificates the gateway would not make, for the tests of what its authority may sign: a server
 * certificate for any names made with an authority's key (what a thief of the key would make), and
 * an authority as an older Bolo made them. Only the JDK's types cross its methods. Stateless.
 */
final class HandMadeCertificates {

  private HandMadeCertificates() {}

  /**
   * A server certificate signed with {@code authorityKey}, made as the gateway makes its own, for
   * {@code names} ({@code DNS:host} or {@code IP:address}), valid from an hour before {@code now}
   * for 90 days, with its key and the authority as its chain.
   */
  static ServerIdentity serverIdentity(
      X509Certificate authority, PrivateKey authorityKey, Instant now, List<String> names) {
    KeyPair keys = Keys.newKeyPair();
    JcaX509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            authority,
            Certificates.serial(),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(90))),
            new X500Principal("CN=Bolo gateway"),
            keys.getPublic());
    Certificates.extension(builder, Extension.basicConstraints, true, new BasicConstraints(false));
    Certificates.extension(
        builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    Certificates.extension(
        builder,
        Extension.extendedKeyUsage,
        false,
        new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    GeneralName[] alternativeNames = new GeneralName[names.size()];
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      alternativeNames[i] =
          name.startsWith("IP:")
              ? new GeneralName(GeneralName.iPAddress, name.substring("IP:".length()))
              : new GeneralName(GeneralName.dNSName, name.substring("DNS:".length()));
    }
    Certificates.extension(
        builder, Extension.subjectAlternativeName, false, new GeneralNames(alternativeNames));
    Certificates.extension(
        builder,
        Extension.authorityKeyIdentifier,
        false,
        Certificates.keyIdentifiers().createAuthorityKeyIdentifier(authority.getPublicKey()));
    return new ServerIdentity(
        keys.getPrivate(), List.of(Certificates.sign(builder, authorityKey), authority));
  }

  /**
   * An authority as Bolo made them before name constraints, for {@code keys}: ten years (made 300
   * days before {@code now}), any name.
   */
  static X509Certificate olderAuthority(KeyPair keys, Instant now) {
    X500Name name = new X500Name("O=Bolo,CN=Bolo local CA 2026-02-04");
    JcaX509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            name,
            Certificates.serial(),
            Date.from(now.minus(Duration.ofDays(300))),
            Date.from(now.plus(Duration.ofDays(3650 - 300))),
            name,
            keys.getPublic());
    Certificates.extension(builder, Extension.basicConstraints, true, new BasicConstraints(0));
    Certificates.extension(
        builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    return Certificates.sign(builder, keys.getPrivate());
  }
}
