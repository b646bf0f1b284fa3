package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  @Test
  void delaySecondsAndHttpDatesAreBothRead() {
    assertThat(RetryAfter.parse("17", NOW)).isEqualTo(Duration.ofSeconds(17));
    assertThat(RetryAfter.parse(" 0 ", NOW)).isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("Mon, 30 Nov 2026 12:01:30 GMT", NOW))
        .isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void aDateInThePastMeansNowAndNonsenseMeansUnknown() {
    assertThat(RetryAfter.parse("Mon, 30 Nov 2026 11:00:00 GMT", NOW)).isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("-5", NOW)).isNull();
    assertThat(RetryAfter.parse("soon", NOW)).isNull();
    assertThat(RetryAfter.parse(null, NOW)).isNull();
    assertThat(RetryAfter.parse("", NOW)).isNull();
  }

  @Test
  void aHugeDelayIsCappedAtAnHourWhateverItsForm() {
    assertThat(RetryAfter.parse("3601", NOW)).isEqualTo(RetryAfter.MAX);
    assertThat(RetryAfter.parse("9223372036854775807", NOW)).isEqualTo(RetryAfter.MAX);
    assertThat(RetryAfter.parse("9".repeat(60), NOW)).isEqualTo(RetryAfter.MAX);
    assertThat(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", NOW)).isEqualTo(RetryAfter.MAX);
    assertThat(RetryAfter.MAX).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aValueLongerThanAnyRetryAfterIsUnknownWithoutBeingParsed() {
    assertThat(RetryAfter.parse("9".repeat(65), NOW)).isNull();
    assertThat(
            RetryAfter.parse(
                "Mon, 30 Nov 2026 12:01:30 GMT" + " ".repeat(10) + "x".repeat(40), NOW))
        .isNull();
  }
}
