package dev.bolo.server.ledger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;

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
   * The least a configured token must hold, in bits: as much as an AES-128 key, far beyond what
   * guessing at any rate can find; {@link #newToken()} makes 192.
   */
  static final int MIN_BITS = 128;

  /** Characters of base64url besides letters and digits, which tokens often hold. */
  private static final String URL_SAFE = "-_";

  /**
   * About how many random bits {@code token} holds, estimated from its length and the smallest of
   * the usual alphabets it is written in: a token is as strong as if every character were drawn at
   * random from that alphabet (32 hex digits: 128 bits; 22 characters of base64: 132). A token that
   * repeats a few characters ({@code aaaa…}, {@code abab…}) was not drawn at random: it counts as
   * its distinct characters alone. An estimate from above: a word or a date inside is not noticed.
   */
  static int estimatedBits(String token) {
    if (token.isEmpty()) {
      return 0;
    }
    boolean lower = false;
    boolean upper = false;
    boolean digits = false;
    boolean urlSafe = false;
    boolean other = false;
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c >= 'a' && c <= 'z') {
        lower = true;
      } else if (c >= 'A' && c <= 'Z') {
        upper = true;
      } else if (c >= '0' && c <= '9') {
        digits = true;
      } else if (URL_SAFE.indexOf(c) >= 0) {
        urlSafe = true;
      } else {
        other = true;
      }
    }
    int alphabet;
    if (token.chars().allMatch(c -> HexFormat.isHexDigit(c))
        && (token.equals(token.toLowerCase(Locale.ROOT))
            || token.equals(token.toUpperCase(Locale.ROOT)))) {
      // Hex in one case: 16 symbols (10 when only digits).
      alphabet = lower || upper ? 16 : 10;
    } else {
      // The 94 printable ASCII characters, in classes: 26 + 26 + 10 + 2 + the 30 other symbols.
      alphabet =
          (lower ? 26 : 0)
              + (upper ? 26 : 0)
              + (digits ? 10 : 0)
              + (urlSafe ? 2 : 0)
              + (other ? 30 : 0);
    }
    long distinct = token.chars().distinct().count();
    // Drawn at random, a token uses a good share of its alphabet: 32 random hex digits use about 14
    // of the 16, 22 random base64 characters about 18 of the 64. A quarter is far below that.
    int length =
        distinct * 4 < Math.min(alphabet, token.length()) ? (int) distinct : token.length();
    return (int) Math.floor(length * Math.log(alphabet) / Math.log(2));
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
