package dev.bolo.server.ledger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/** Device tokens: made random, stored and compared only as hashes. */
public final class Tokens {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Tokens() {}

  /** A new token with 192 random bits, URL-safe, prefixed so it is recognisable in a config. */
  public static String newToken() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return "bolo_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Hex SHA-256 of a token. Looking a token up by this hash takes the same time whatever its prefix
   * matches, unlike comparing the clear tokens.
   */
  public static String hash(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
