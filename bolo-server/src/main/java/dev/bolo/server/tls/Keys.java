package dev.bolo.server.tls;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;

/** Key pairs and the signature algorithm that goes with a key, from the JDK alone. Stateless. */
final class Keys {

  /**
   * The curve of every key the gateway makes: P-256 (secp256r1), which every phone's TLS stack and
   * certificate store takes, and the smallest and fastest of the widely supported choices.
   */
  private static final String CURVE = "secp256r1";

  private Keys() {}

  static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec(CURVE), new SecureRandom());
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK makes " + CURVE + " keys", e);
    }
  }

  /** The signature algorithm of a certificate signed with a key of this algorithm. */
  static String signatureAlgorithm(String keyAlgorithm) {
    return switch (keyAlgorithm) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> throw new IllegalArgumentException("unsupported key algorithm " + keyAlgorithm);
    };
  }

  /** Whether {@code key} is the private half of {@code publicKey}: it signs what that verifies. */
  static boolean belongTogether(PrivateKey key, PublicKey publicKey) {
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      return false;
    }
    try {
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      String algorithm = signatureAlgorithm(key.getAlgorithm());
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(challenge);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
