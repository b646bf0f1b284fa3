package dev.bolo.server.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The steps of making a certificate with BouncyCastle that cannot fail on a working JDK, with their
 * checked exceptions turned into bugs: an extension added, key identifiers, a serial, the
 * signature. Stateless.
 */
final class Certificates {

  private Certificates() {}

  static void extension(
      X509v3CertificateBuilder builder,
      ASN1ObjectIdentifier id,
      boolean critical,
      ASN1Encodable value) {
    try {
      builder.addExtension(id, critical, value);
    } catch (CertIOException e) {
      throw new IllegalStateException("cannot encode the extension " + id, e);
    }
  }

  static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signingKey) {
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

  /** Makes the subject and authority key identifiers of RFC 5280 (SHA-1 of the public key). */
  static JcaX509ExtensionUtils keyIdentifiers() {
    try {
      return new JcaX509ExtensionUtils();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has SHA-1 for key identifiers", e);
    }
  }

  /** A positive random serial of 128 bits, as CAs use (CA/Browser Forum: at least 64 random). */
  static BigInteger serial() {
    return new BigInteger(128, new SecureRandom());
  }
}
