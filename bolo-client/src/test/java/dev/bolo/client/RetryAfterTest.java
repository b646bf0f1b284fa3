package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

  private static final Instant NOW = Instant.parse("1994-11-06T08:49:00Z");

  @ParameterizedTest
  @CsvSource({"0, 0", "7, 7", "' 120 ', 120", "99999999999999999999, 31536000"})
  void deltaSecondsAreReadAsSeconds(String header, long seconds) {
    assertThat(RetryAfter.parse(header, NOW)).isEqualTo(Duration.ofSeconds(seconds));
  }

  /** RFC 9110 §5.6.7: the preferred form and both obsolete forms, all 37 s after NOW. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994"
      })
  void httpDatesInAllThreeFormsAreReadRelativeToNow(String header) {
    assertThat(RetryAfter.parse(header, NOW)).isEqualTo(Duration.ofSeconds(37));
  }

  @ParameterizedTest
  @ValueSource(strings = {"Sun, 06 Nov 1994 08:48:00 GMT", "Sat, 05 Nov 1994 08:49:37 GMT"})
  void aDateInThePastMeansNoWait(String header) {
    assertThat(RetryAfter.parse(header, NOW)).isEqualTo(Duration.ZERO);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "-5", "1.5", "soon", "Sun, 06 Nov 1994 08:49:37 CET"})
  void malformedValuesAreIgnored(String header) {
    assertThat(RetryAfter.parse(header, NOW)).isNull();
  }

  /** A wait of years parks the phone for good; a year is the most believed, as for seconds. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "Sun, 06 Nov 2004 08:49:37 GMT",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Sunday, 06-Nov-43 08:49:37 GMT"
      })
  void aDateMoreThanAYearAheadIsReadAsAYear(String header) {
    Duration wait = java.util.Objects.requireNonNull(RetryAfter.parse(header, NOW));
    assertThat(wait).isEqualTo(Duration.ofDays(365));
    assertThat(wait.toMillis()).isEqualTo(365L * 24 * 3600 * 1000);
  }
}
