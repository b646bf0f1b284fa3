package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Timeout;

/**
 * The SDK's {@code Retry-After} parser (the gateway's header) on fuzzed values: never an exception;
 * absent, or a wait from zero to a year that fits in milliseconds. The first byte picks the shape:
 * 0 a raw header; 1 delay-seconds from four bytes; 2 an IMF-fixdate that many seconds (signed) from
 * now. The built shapes must give exactly their wait, capped. Inputs: {@code
 * src/test/resources/dev/bolo/client/RetryAfterFuzzTestInputs}.
 */
class RetryAfterFuzzTest {

  private static final Instant NOW = Instant.parse("1994-11-06T08:49:00Z");
  private static final Duration MOST = Duration.ofDays(365);
  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);

  @FuzzTest(maxDuration = "2s")
  @Timeout(10)
  void everyHeaderIsIgnoredOrABoundedWait(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int shape = Byte.toUnsignedInt(input[0]) % 3;
    if (shape == 0 || input.length < 5) {
      String header =
          new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
      Duration wait = RetryAfter.parse(header, NOW);
      if (wait != null) {
        assertThat(wait).isBetween(Duration.ZERO, MOST);
        assertThat(wait.toMillis()).isNotNegative();
      }
      assertThat(RetryAfter.parse(header, NOW)).isEqualTo(wait);
      return;
    }
    int number = ByteBuffer.wrap(input, 1, 4).getInt();
    if (shape == 1) {
      long seconds = Integer.toUnsignedLong(number);
      assertThat(RetryAfter.parse(Long.toString(seconds), NOW))
          .isEqualTo(capped(Duration.ofSeconds(seconds)));
    } else {
      String date = IMF_FIXDATE.format(NOW.plusSeconds(number));
      Duration expected = number < 0 ? Duration.ZERO : capped(Duration.ofSeconds(number));
      assertThat(RetryAfter.parse(date, NOW)).isEqualTo(expected);
    }
  }

  private static Duration capped(Duration wait) {
    return wait.compareTo(MOST) > 0 ? MOST : wait;
  }
}
