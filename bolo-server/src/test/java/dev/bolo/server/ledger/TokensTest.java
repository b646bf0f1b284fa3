package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How strong a configured token is estimated to be. */
class TokensTest {

  @ParameterizedTest(name = "{0}: {1} bits")
  @CsvSource({
    // openssl rand -hex 16, and one digit short of it
    "0123456789abcdef0123456789abcdef, 128",
    "0123456789abcdef0123456789abcde, 124",
    // openssl rand -base64 16 (padding included), and 22 characters of base64url
    "q8Zk1S0fB0vJ4nW3m9yTfQ==, 156",
    "q8Zk1S0fB0vJ4nW3m9yTfQ, 130",
    // words and a counter, as a person makes a token up
    "token-alpha-0123456789, 115",
    "kiosk-secret-token, 86",
    // a character repeated, or two: not drawn at random
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, 4",
    "abababababababababababababababababababab, 8",
    "'', 0",
  })
  void aTokenIsAsStrongAsItsLengthInItsAlphabet(String token, int bits) {
    assertThat(Tokens.estimatedBits(token)).isEqualTo(bits);
  }

  @RepeatedTest(20)
  void everyTokenTheGatewayMakesHoldsMoreThanTheLeastAConfiguredOneMust() {
    assertThat(Tokens.estimatedBits(Tokens.newToken())).isGreaterThanOrEqualTo(Tokens.MIN_BITS);
  }
}
