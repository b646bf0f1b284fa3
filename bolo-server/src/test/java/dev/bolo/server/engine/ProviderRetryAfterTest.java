package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  @Test
  void delaySecondsAndHttpDatesAreBothRead() {
    assertThat(ProviderRetryAfter.parse("17", NOW)).isEqualTo(Duration.ofSeconds(17));
    assertThat(ProviderRetryAfter.parse(" 0 ", NOW)).isEqualTo(Duration.ZERO);
    assertThat(ProviderRetryAfter.parse("Mon, 30 Nov 2026 12:01:30 GMT", NOW))
        .isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void aDateInThePastMeansNowAndNonsenseMeansUnknown() {
    assertThat(ProviderRetryAfter.parse("Mon, 30 Nov 2026 11:00:00 GMT", NOW))
        .isEqualTo(Duration.ZERO);
    assertThat(ProviderRetryAfter.parse("-5", NOW)).isNull();
    assertThat(ProviderRetryAfter.parse("soon", NOW)).isNull();
    assertThat(ProviderRetryAfter.parse(null, NOW)).isNull();
    assertThat(ProviderRetryAfter.parse("", NOW)).isNull();
  }

  @Test
  void aHugeDelayIsCappedAtAnHourWhateverItsForm() {
    assertThat(ProviderRetryAfter.parse("3601", NOW)).isEqualTo(ProviderRetryAfter.MAX);
    assertThat(ProviderRetryAfter.parse("9223372036854775807", NOW))
        .isEqualTo(ProviderRetryAfter.MAX);
    assertThat(ProviderRetryAfter.parse("9".repeat(60), NOW)).isEqualTo(ProviderRetryAfter.MAX);
    assertThat(ProviderRetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", NOW))
        .isEqualTo(ProviderRetryAfter.MAX);
    assertThat(ProviderRetryAfter.MAX).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aValueLongerThanAnyRetryAfterIsUnknownWithoutBeingParsed() {
    assertThat(ProviderRetryAfter.parse("9".repeat(65), NOW)).isNull();
    assertThat(
            ProviderRetryAfter.parse(
                "Mon, 30 Nov 2026 12:01:30 GMT" + " ".repeat(10) + "x".repeat(40), NOW))
        .isNull();
  }

  @Test
  void aHeaderTheAnswerLimitMadeSafeIsReadAsDelaySecondsOnly() {
    assertThat(ProviderRetryAfter.parseSafe("17")).isEqualTo(Duration.ofSeconds(17));
    assertThat(ProviderRetryAfter.parseSafe(" 0 ")).isEqualTo(Duration.ZERO);
    assertThat(ProviderRetryAfter.parseSafe("9".repeat(60))).isEqualTo(ProviderRetryAfter.MAX);
    // A date never gets this far: the answer limit measured it already; no clock reads it here.
    assertThat(ProviderRetryAfter.parseSafe("Mon, 30 Nov 2026 12:01:30 GMT")).isNull();
    assertThat(ProviderRetryAfter.parseSafe("soon")).isNull();
    assertThat(ProviderRetryAfter.parseSafe(null)).isNull();
    assertThat(ProviderRetryAfter.parseSafe("9".repeat(65))).isNull();
  }
}
