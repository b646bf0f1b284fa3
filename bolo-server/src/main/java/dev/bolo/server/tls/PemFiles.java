package dev.bolo.server.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.util.io.pem.PemGenerationException;

/**
 * Certificates and private keys as PEM files, read with BouncyCastle's parser so that every form
 * the usual tools write is taken: a key as PKCS#8 ({@code BEGIN PRIVATE KEY}, certbot's and
 * openssl's), SEC 1 ({@code BEGIN EC PRIVATE KEY}, Caddy's) or PKCS#1 ({@code BEGIN RSA PRIVATE
 * KEY}). The keys and certificates come out as the JDK's own types, so no security provider is
 * installed. Stateless.
 */
final class PemFiles {

  private PemFiles() {}

  /**
   * The certificates of {@code file} in their order: a server's certificate first, then the
   * intermediates that chain it to a trusted root.
   *
   * @throws IllegalArgumentException naming the file when it holds no certificate or cannot be read
   */
  static List<X509Certificate> certificates(Path file) {
    List<X509Certificate> certificates = new ArrayList<>();
    try (PEMParser pem = parser(file)) {
      JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
      for (Object item = pem.readObject(); item != null; item = pem.readObject()) {
        if (item instanceof X509CertificateHolder holder) {
          certificates.add(converter.getCertificate(holder));
        }
      }
    } catch (IOException | CertificateException e) {
      throw new IllegalArgumentException("cannot read the certificates of " + file + ": " + e, e);
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no PEM certificate (BEGIN CERTIFICATE)");
    }
    return List.copyOf(certificates);
  }

  /**
   * The private key of {@code file}: the first key in it.
   *
   * @throws IllegalArgumentException naming the file when it holds no key, an encrypted one, or
   *     cannot be read
   */
  static PrivateKey privateKey(Path file) {
    try (PEMParser pem = parser(file)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object item = pem.readObject(); item != null; item = pem.readObject()) {
        // A gateway that starts unattended has nobody to type a pass phrase.
        if (item instanceof PEMEncryptedKeyPair || item instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new IllegalArgumentException(
              file
                  + " holds an encrypted key; write it unencrypted for the gateway"
                  + " (openssl pkey -in KEY -out PLAIN-KEY) and keep that file 0600");
        }
        if (item instanceof PEMKeyPair pair) {
          // A SEC 1 key may leave its public half out; the private half is all that is needed.
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (item instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the private key of " + file + ": " + e, e);
    }
    throw new IllegalArgumentException(file + " holds no PEM private key (BEGIN PRIVATE KEY)");
  }

  /** {@code certificate} as PEM text. */
  static String text(X509Certificate certificate) {
    return write(certificate);
  }

  /** {@code key} as PEM text in PKCS#8 ({@code BEGIN PRIVATE KEY}), which every tool reads. */
  static String text(PrivateKey key) {
    try {
      return write(new JcaPKCS8Generator(key, null));
    } catch (PemGenerationException e) {
      throw new IllegalStateException("cannot encode a private key", e);
    }
  }

  private static String write(Object object) {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write PEM", e);
    }
    return text.toString();
  }

  private static PEMParser parser(Path file) throws IOException {
    // Latin-1 reads any byte: a comment line in another encoding is skipped, not a failure.
    Reader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1);
    return new PEMParser(reader);
  }
}
