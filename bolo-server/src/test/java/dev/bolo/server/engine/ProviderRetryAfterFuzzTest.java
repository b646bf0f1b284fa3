package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway's {@code Retry-After} parser (a provider's header) on fuzzed values: never an
 * exception; absent, or a wait from zero to {@link ProviderRetryAfter#MAX}. The first byte picks
 * the shape: 0 a raw header; 1 delay-seconds from four bytes; 2 an HTTP-date that many seconds
 * (signed) from now. The built shapes must give exactly their wait, capped. Inputs: {@code
 * src/test/resources/dev/bolo/server/engine/RetryAfterFuzzTestInputs}.
 */
class RetryAfterFuzzTest {

  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

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
      Duration wait = ProviderRetryAfter.parse(header, NOW);
      if (wait != null) {
        assertThat(wait).isBetween(Duration.ZERO, ProviderRetryAfter.MAX);
      }
      assertThat(ProviderRetryAfter.parse(header, NOW)).isEqualTo(wait);
      return;
    }
    int number = ByteBuffer.wrap(input, 1, 4).getInt();
    if (shape == 1) {
      long seconds = Integer.toUnsignedLong(number);
      assertThat(ProviderRetryAfter.parse(Long.toString(seconds), NOW))
          .isEqualTo(capped(Duration.ofSeconds(seconds)));
    } else {
      String date =
          DateTimeFormatter.RFC_1123_DATE_TIME.format(
              NOW.plusSeconds(number).atOffset(ZoneOffset.UTC));
      Duration expected = number < 0 ? Duration.ZERO : capped(Duration.ofSeconds(number));
      assertThat(ProviderRetryAfter.parse(date, NOW)).isEqualTo(expected);
    }
  }

  private static Duration capped(Duration wait) {
    return wait.compareTo(ProviderRetryAfter.MAX) > 0 ? ProviderRetryAfter.MAX : wait;
  }
}
