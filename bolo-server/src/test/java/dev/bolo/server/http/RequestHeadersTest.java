package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestHeadersTest {

  @Test
  void aKeyIsTheSameQuotedOrBare() {
    assertThat(RequestHeaders.idempotencyKey("note-17")).isEqualTo("note-17");
    assertThat(RequestHeaders.idempotencyKey(" \"note-17\" ")).isEqualTo("note-17");
    assertThat(RequestHeaders.idempotencyKey(null)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\"\"", "a b", "ключ", "\u0001"})
  void aKeyThatIsNotOneTo255VisibleAsciiCharactersIsRefused(String header) {
    assertThatThrownBy(() -> RequestHeaders.idempotencyKey(header))
        .isInstanceOfSatisfying(
            MalformedParameterException.class,
            e -> assertThat(e.parameter()).isEqualTo("Idempotency-Key"));
    assertThatThrownBy(() -> RequestHeaders.idempotencyKey("k".repeat(256)))
        .isInstanceOf(MalformedParameterException.class);
  }

  @Test
  void aClaimedLengthIsWholeMillisecondsUpToADay() {
    assertThat(RequestHeaders.claimedDurationMs(" 2990 ")).isEqualTo(OptionalLong.of(2990));
    assertThat(RequestHeaders.claimedDurationMs("86400000")).isEqualTo(OptionalLong.of(86_400_000));
    assertThat(RequestHeaders.claimedDurationMs(null)).isEmpty();
  }

  /**
   * {@code isBlank()} does not count control characters as blank but {@code trim()} drops them: a
   * header of control characters once reached {@code Long.parseLong("")} and a 500.
   */
  @ParameterizedTest
  @ValueSource(strings = {" ", "\u0000", "\u0001\u0005", "\t\u001f"})
  void aClaimedLengthOfNothingButBlanksAndControlCharactersIsAbsent(String header) {
    assertThat(RequestHeaders.claimedDurationMs(header)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"-5", "1.5", "86400001", "99999999999999999999", "1e3"})
  void anyOtherClaimedLengthIsRefusedNamingTheHeader(String header) {
    assertThatThrownBy(() -> RequestHeaders.claimedDurationMs(header))
        .isInstanceOfSatisfying(
            MalformedParameterException.class,
            e -> assertThat(e.parameter()).isEqualTo("X-Bolo-Audio-Duration-Ms"));
  }
}
