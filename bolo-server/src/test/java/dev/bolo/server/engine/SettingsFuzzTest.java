package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bolo.testkit.CleanText;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Timeout;

/**
 * Settings canonicalisation on fuzzed client values. The input is split at NUL bytes into model,
 * language, prompt, temperature, response format and comma-separated timestamp granularities (a
 * missing piece is a setting not sent). Each set of values is either refused with {@link
 * InvalidSettingException} naming a parameter, in a message that is one line of printable text
 * however hostile the value it quotes ({@link CleanText}), or gives settings whose every field is
 * bounded and which canonicalise to themselves: parse, then parse the canonical form again, gives
 * the same settings. Inputs: {@code
 * src/test/resources/dev/bolo/server/engine/SettingsFuzzTestInputs}.
 */
class SettingsFuzzTest {

  private static final Set<String> PARAMETERS =
      Set.of("language", "prompt", "temperature", "response_format", "timestamp_granularities[]");

  @FuzzTest(maxDuration = "2s")
  @Timeout(10)
  void settingsCanonicaliseToAFixedPointOrAreRefused(byte[] input) {
    String[] pieces = new String(input, StandardCharsets.UTF_8).split("\0", 6);
    @Nullable String model = piece(pieces, 0);
    @Nullable String language = piece(pieces, 1);
    @Nullable String prompt = piece(pieces, 2);
    @Nullable String temperature = piece(pieces, 3);
    @Nullable String format = piece(pieces, 4);
    @Nullable String granularities = piece(pieces, 5);
    List<String> granularityList =
        granularities == null ? List.of() : Arrays.asList(granularities.split(",", -1));

    Settings settings;
    try {
      settings =
          Settings.canonical(
              "openai", "whisper-1", model, language, prompt, temperature, format, granularityList);
    } catch (InvalidSettingException refused) {
      assertThat(refused.parameter()).isIn(PARAMETERS);
      assertThat(refused.kind()).isEqualTo(InvalidSettingException.Kind.MALFORMED);
      // The message may quote the value, but only a short and printable piece of it.
      assertThat(CleanText.check(java.util.Objects.requireNonNull(refused.getMessage())))
          .hasSizeLessThanOrEqualTo(200);
      return;
    }

    // Trimmed as String.trim() does; nothing left is the default model.
    assertThat(settings.model())
        .isEqualTo(model == null || model.trim().isEmpty() ? "whisper-1" : model.trim());
    assertThat(settings.language()).hasSizeLessThanOrEqualTo(Settings.MAX_LANGUAGE_CHARS);
    assertThat(settings.prompt()).hasSizeLessThanOrEqualTo(Settings.MAX_PROMPT_CHARS);
    assertThat(settings.temperature()).hasSizeLessThanOrEqualTo(32);
    BigDecimal value = new BigDecimal(settings.temperature());
    assertThat(value).isBetween(BigDecimal.ZERO, BigDecimal.ONE);
    assertThat(settings.temperature())
        .isEqualTo(value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString());
    assertThat(settings.timestampGranularities()).isSorted().isSubsetOf("segment", "word");
    if (settings.responseFormat() != ResponseFormat.VERBOSE_JSON) {
      assertThat(settings.timestampGranularities()).isEmpty();
    }

    assertThatCode(
            () ->
                assertThat(
                        Settings.canonical(
                            "openai",
                            "whisper-1",
                            settings.model(),
                            settings.language(),
                            settings.prompt(),
                            settings.temperature(),
                            settings.responseFormat().wireName(),
                            settings.timestampGranularities()))
                    .isEqualTo(settings))
        .as("the canonical form parses to itself")
        .doesNotThrowAnyException();
  }

  private static @Nullable String piece(String[] pieces, int index) {
    return index < pieces.length ? pieces[index] : null;
  }
}
