package dev.bolo.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Verifies a webhook a Bolo gateway sent about a job, as the Standard Webhooks specification
 * defines it: {@code webhook-signature} holds one or more space-separated {@code v1,<base64>}
 * signatures (two while the device's secret is being rotated), each the HMAC-SHA256 of {@code
 * <webhook-id>.<webhook-timestamp>.<body>} keyed with the base64 after {@code whsec_}; one match is
 * enough. A timestamp more than {@link #TOLERANCE} from now is refused, so that a captured request
 * cannot be replayed later. Verify the body exactly as it arrived, before parsing it. Stateless and
 * thread safe.
 *
 * <pre>{@code
 * Webhooks.verify(headers, body, System.getenv("BOLO_WEBHOOK_SECRET")); // throws if forged
 * }</pre>
 */
public final class Webhooks {

  /** How far a webhook's timestamp may be from the receiver's clock (the specification's 5 min). */
  public static final Duration TOLERANCE = Duration.ofMinutes(5);

  private static final String SECRET_PREFIX = "whsec_";

  private Webhooks() {}

  /**
   * Returns quietly when the request is a webhook signed with {@code secret} within {@link
   * #TOLERANCE} of the system clock.
   *
   * @param headers the request's headers, names in any case
   * @param body the request's body, byte for byte
   * @param secret the device's {@code whsec_…} secret (the prefix may be left out)
   * @throws WebhookVerificationException saying what is wrong: forged, altered, stale or incomplete
   * @throws IllegalArgumentException when {@code secret} is not {@code whsec_} and base64
   */
  public static void verify(Map<String, String> headers, byte[] body, String secret)
      throws WebhookVerificationException {
    verify(headers, body, secret, Instant.now());
  }

  /** As {@link #verify(Map, byte[], String)}, against the time {@code now}. */
  public static void verify(Map<String, String> headers, byte[] body, String secret, Instant now)
      throws WebhookVerificationException {
    byte[] key = key(secret);
    String id = header(headers, "webhook-id");
    String timestamp = header(headers, "webhook-timestamp");
    String signatures = header(headers, "webhook-signature");
    long seconds;
    try {
      seconds = Long.parseLong(timestamp.trim());
    } catch (NumberFormatException e) {
      throw new WebhookVerificationException(
          "webhook-timestamp is not a whole number of seconds: " + timestamp);
    }
    long skew = now.getEpochSecond() - seconds;
    if (skew > TOLERANCE.getSeconds()) {
      throw new WebhookVerificationException(
          "the webhook's timestamp is " + skew + " s old, beyond " + TOLERANCE.getSeconds() + " s");
    }
    if (-skew > TOLERANCE.getSeconds()) {
      throw new WebhookVerificationException(
          "the webhook's timestamp is " + -skew + " s ahead of this clock");
    }
    byte[] expected =
        Base64.getEncoder()
            .encodeToString(hmac(key, id + "." + seconds + ".", body))
            .getBytes(StandardCharsets.US_ASCII);
    for (String versioned : signatures.trim().split(" +")) {
      int comma = versioned.indexOf(',');
      // Versions other than v1 (an asymmetric v1a, say) are not this secret's to check.
      if (comma < 0 || !versioned.substring(0, comma).equals("v1")) {
        continue;
      }
      byte[] given = versioned.substring(comma + 1).getBytes(StandardCharsets.US_ASCII);
      // In constant time: how much of a forged signature matched must not show.
      if (MessageDigest.isEqual(expected, given)) {
        return;
      }
    }
    throw new WebhookVerificationException(
        "no v1 signature in webhook-signature matches this secret: forged, altered, or signed"
            + " with another secret");
  }

  private static String header(Map<String, String> headers, String name)
      throws WebhookVerificationException {
    @Nullable String value = null;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (header.getKey() != null && header.getKey().toLowerCase(Locale.ROOT).equals(name)) {
        value = header.getValue();
      }
    }
    if (value == null || value.isBlank()) {
      throw new WebhookVerificationException("the request has no " + name + " header");
    }
    return value;
  }

  private static byte[] key(String secret) {
    String encoded =
        secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret;
    byte[] key;
    try {
      key = Base64.getDecoder().decode(encoded.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a webhook secret is whsec_ followed by base64", e);
    }
    if (key.length == 0) {
      throw new IllegalArgumentException("a webhook secret holds at least one byte");
    }
    return key;
  }

  private static byte[] hmac(byte[] key, String prefix, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(prefix.getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has HmacSHA256 for any key", e);
    }
  }
}
