package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bolo.testkit.CleanText;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalLong;
import org.junit.jupiter.api.Timeout;

/**
 * The request headers the gateway parses from a client, on fuzzed values: the {@code
 * Idempotency-Key} (first byte even) and the claimed note length (odd). Each header gives a bounded
 * value or is refused with {@link MalformedParameterException} naming it in one line of printable
 * text ({@link CleanText}), never another exception; a key is 1 to 255 visible ASCII characters and
 * names the same key quoted or bare; a length is 0 to a day and is the number sent. Inputs: {@code
 * src/test/resources/dev/bolo/server/http/RequestHeadersFuzzTestInputs}.
 */
class RequestHeadersFuzzTest {

  @FuzzTest(maxDuration = "2s")
  @Timeout(10)
  void clientHeadersGiveBoundedValuesOrAreRefused(byte[] input) {
    if (input.length == 0) {
      return;
    }
    String header = new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
    if ((input[0] & 1) == 0) {
      String key;
      try {
        // A present header gives a key or a refusal, never null.
        key = Objects.requireNonNull(RequestHeaders.idempotencyKey(header));
      } catch (MalformedParameterException refused) {
        assertThat(refused.parameter()).isEqualTo(RequestHeaders.IDEMPOTENCY_KEY);
        CleanText.check(java.util.Objects.requireNonNull(refused.getMessage()));
        return;
      }
      assertThat(key).hasSizeBetween(1, RequestHeaders.MAX_IDEMPOTENCY_KEY_CHARS);
      assertThat(key.chars()).allMatch(c -> c >= 0x21 && c <= 0x7e);
      assertThat(header.trim()).isIn(key, "\"" + key + "\"");
      if (!key.startsWith("\"") || !key.endsWith("\"") || key.length() < 2) {
        // Bare and quoted are the same key.
        assertThat(RequestHeaders.idempotencyKey("\"" + key + "\"")).isEqualTo(key);
        assertThat(RequestHeaders.idempotencyKey(key)).isEqualTo(key);
      }
    } else {
      OptionalLong claimed;
      try {
        claimed = RequestHeaders.claimedDurationMs(header);
      } catch (MalformedParameterException refused) {
        assertThat(refused.parameter()).isEqualTo(RequestHeaders.AUDIO_DURATION);
        assertThat(CleanText.check(java.util.Objects.requireNonNull(refused.getMessage())))
            .hasSizeLessThanOrEqualTo(120);
        return;
      }
      if (header.trim().isEmpty()) {
        assertThat(claimed).isEmpty();
      } else {
        assertThat(claimed).isPresent();
        assertThat(claimed.getAsLong()).isBetween(0L, RequestHeaders.MAX_CLAIMED_DURATION_MS);
        assertThat(Long.parseLong(header.trim())).isEqualTo(claimed.getAsLong());
      }
    }
  }
}
