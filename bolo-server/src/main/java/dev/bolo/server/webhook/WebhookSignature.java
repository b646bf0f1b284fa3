package dev.bolo.server.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.StringJoiner;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code webhook-signature} header as the Standard Webhooks specification (1.0.0, "Signature
 * scheme") defines it: for each secret, {@code v1,} followed by the base64 (standard alphabet,
 * padded) HMAC-SHA256 of {@code <webhook-id>.<webhook-timestamp>.<body>}, keyed with the bytes the
 * base64 after {@code whsec_} decodes to; several signatures separated by one space. Stateless and
 * thread safe.
 */
public final class WebhookSignature {

  /** The prefix of a symmetric secret in the specification's format. */
  public static final String SECRET_PREFIX = "whsec_";

  private static final String ALGORITHM = "HmacSHA256";

  private WebhookSignature() {}

  /**
   * The header value signing {@code body} with every one of {@code secrets}, in their order.
   *
   * @param timestamp its Unix seconds are what is signed and sent as {@code webhook-timestamp}
   * @throws IllegalArgumentException when a secret is not {@code whsec_} and base64, or none given
   */
  public static String header(String id, Instant timestamp, byte[] body, List<String> secrets) {
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("a webhook is signed with at least one secret");
    }
    byte[] signed = signedContent(id, timestamp.getEpochSecond(), body);
    StringJoiner header = new StringJoiner(" ");
    for (String secret : secrets) {
      header.add("v1," + Base64.getEncoder().encodeToString(hmac(key(secret), signed)));
    }
    return header.toString();
  }

  /** {@code id.timestamp.body}: the bytes the specification signs. */
  static byte[] signedContent(String id, long timestampSeconds, byte[] body) {
    byte[] prefix = (id + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
    byte[] content = new byte[prefix.length + body.length];
    System.arraycopy(prefix, 0, content, 0, prefix.length);
    System.arraycopy(body, 0, content, prefix.length, body.length);
    return content;
  }

  /** The HMAC key of a {@code whsec_…} secret: its base64 part, decoded. */
  static byte[] key(String secret) {
    // A guard, not a format check for a client: secrets are the ledger's own.
    if (!secret.startsWith(SECRET_PREFIX)) {
      throw new IllegalArgumentException("a webhook secret starts with " + SECRET_PREFIX);
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a webhook secret is whsec_ and base64", e);
    }
    if (key.length == 0) {
      throw new IllegalArgumentException("a webhook secret holds at least one byte");
    }
    return key;
  }

  private static byte[] hmac(byte[] key, byte[] content) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(key, ALGORITHM));
      return mac.doFinal(content);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("every Java platform has HmacSHA256 for any key", e);
    }
  }
}
