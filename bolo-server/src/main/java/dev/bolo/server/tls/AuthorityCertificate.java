package dev.bolo.server.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The public certificate of the gateway's own certificate authority: what a phone installs to trust
 * the gateway, served at {@code /ca.crt}. Holds no key. Immutable.
 */
public final class AuthorityCertificate {

  private final X509Certificate certificate;
  private final byte[] der;

  AuthorityCertificate(X509Certificate certificate) {
    this.certificate = certificate;
    try {
      this.der = certificate.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("an unencodable certificate", e);
    }
  }

  /** The certificate in DER, as a phone's certificate installer takes it. */
  public byte[] der() {
    return der.clone();
  }

  /** The certificate as PEM text. */
  public String pem() {
    return PemFiles.text(certificate);
  }

  /**
   * The certificate's SHA-256 fingerprint as phones show it ({@code AB:CD:…}, 32 bytes), so a
   * person can check that the certificate they install is this one.
   */
  public String sha256Fingerprint() {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(der);
      return HexFormat.ofDelimiter(":").formatHex(digest).toUpperCase(Locale.ROOT);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The authority's name, as a phone lists it among installed certificates. */
  public String name() {
    return certificate.getSubjectX500Principal().getName();
  }
}
