package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.work.WorkKey;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class SettingsTest {

  private static Settings of(
      @Nullable String model,
      @Nullable String language,
      @Nullable String prompt,
      @Nullable String temperature,
      @Nullable String format) {
    return Settings.canonical(
        "openai", "whisper-1", model, language, prompt, temperature, format, List.of());
  }

  @Test
  void absentEqualsTheDefaultAndSpellingsAreCanonical() {
    Settings absent =
        Settings.canonical("openai", "whisper-1", null, null, null, null, null, List.of());
    Settings explicit = of("whisper-1", "", "", "0.0", "JSON");
    assertThat(explicit).isEqualTo(absent);
    assertThat(of(null, " EN ", null, null, null)).isEqualTo(of(null, "en", null, null, null));
    assertThat(of(null, null, null, "0.50", null).temperature()).isEqualTo("0.5");
  }

  @Test
  void everyOutputChangingSettingChangesTheFingerprint() {
    Settings base = of(null, "en", "", null, null);
    List<Settings> variants =
        List.of(
            of("whisper-large-v3", "en", "", null, null),
            of(null, "fr", "", null, null),
            of(null, "en", "Names: Ada", null, null),
            of(null, "en", "", "0.3", null),
            of(null, "en", "", null, "text"),
            Settings.canonical("gemini", "whisper-1", null, "en", "", null, null, List.of()));
    for (Settings variant : variants) {
      assertThat(WorkKey.fingerprint(variant))
          .as(variant.toString())
          .isNotEqualTo(WorkKey.fingerprint(base));
    }
    assertThat(WorkKey.fingerprint(of(null, "EN", null, null, null)))
        .isEqualTo(WorkKey.fingerprint(base));
  }

  @Test
  void timestampGranularitiesCountOnlyForVerboseJson() {
    Settings verbose =
        Settings.canonical(
            "openai", "whisper-1", null, null, null, null, "verbose_json", List.of());
    Settings words =
        Settings.canonical(
            "openai",
            "whisper-1",
            null,
            null,
            null,
            null,
            "verbose_json",
            List.of("word", "segment"));
    assertThat(verbose.timestampGranularities()).containsExactly("segment");
    assertThat(words.timestampGranularities()).containsExactly("segment", "word");
    assertThat(
            Settings.canonical(
                    "openai", "whisper-1", null, null, null, null, "json", List.of("word"))
                .timestampGranularities())
        .isEmpty();
  }

  @Test
  void badValuesNameTheirParameter() {
    assertThatThrownBy(() -> of(null, null, null, "1.5", null))
        .isInstanceOfSatisfying(
            InvalidSettingException.class, e -> assertThat(e.parameter()).isEqualTo("temperature"));
    assertThatThrownBy(() -> of(null, null, null, "warm", null))
        .isInstanceOf(InvalidSettingException.class);
    assertThatThrownBy(() -> of(null, "english please", null, null, null))
        .isInstanceOfSatisfying(
            InvalidSettingException.class, e -> assertThat(e.parameter()).isEqualTo("language"));
    assertThatThrownBy(() -> of(null, null, null, null, "mp3"))
        .isInstanceOfSatisfying(
            InvalidSettingException.class,
            e -> assertThat(e.parameter()).isEqualTo("response_format"));
  }

  @Test
  void theUpstreamTimeoutGrowsWithTheNoteAndIsCapped() {
    UpstreamTimeout timeout = UpstreamTimeout.DEFAULT;
    assertThat(timeout.timeoutFor(java.util.OptionalLong.empty())).hasSeconds(120);
    assertThat(timeout.timeoutFor(java.util.OptionalLong.of(60_000))).hasSeconds(180);
    assertThat(timeout.timeoutFor(java.util.OptionalLong.of(779_500))).hasMillis(899_500);
    assertThat(timeout.timeoutFor(java.util.OptionalLong.of(3_600_000))).hasSeconds(900);
  }

  @Test
  void overlongClientValuesAreRefusedNamingTheirParameterWithoutEchoingThem() {
    String huge = "9".repeat(100_000);
    assertRefused(() -> of(null, null, null, "1e-999999999", null), "temperature");
    assertRefused(() -> of(null, null, null, "0." + huge, null), "temperature");
    assertRefused(() -> of(null, "en" + "-abcdefgh".repeat(5), null, null, null), "language");
    assertRefused(() -> of(null, null, "p".repeat(4097), null, null), "prompt");
    assertRefused(() -> of(null, null, null, null, huge), "response_format");
    assertRefused(
        () ->
            Settings.canonical(
                "openai",
                "whisper-1",
                null,
                null,
                null,
                null,
                "verbose_json",
                java.util.Collections.nCopies(5, "word")),
        "timestamp_granularities[]");
    assertThat(of(null, "pt-br", "p".repeat(4096), "0.25", null).prompt()).hasSize(4096);
  }

  /**
   * Canonical text is itself a valid value that canonicalises to itself: ".5" gains a leading zero,
   * so 32 characters of ".000…1" would become 33, beyond the limit a second parse applies.
   */
  @Test
  void aCanonicalTemperatureParsesToItself() {
    String thirtyDecimals = "0." + "0".repeat(29) + "1";
    assertThat(of(null, null, null, thirtyDecimals.substring(1), null).temperature())
        .isEqualTo(thirtyDecimals);
    assertThat(of(null, null, null, thirtyDecimals, null).temperature()).isEqualTo(thirtyDecimals);
    assertRefused(() -> of(null, null, null, "." + "0".repeat(30) + "1", null), "temperature");
  }

  private static void assertRefused(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String parameter) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            InvalidSettingException.class,
            e -> {
              assertThat(e.parameter()).isEqualTo(parameter);
              assertThat(e.getMessage()).hasSizeLessThan(160);
            });
  }

  @Test
  void anEngineOfSomeLanguagesRefusesOthersByTheirPrimarySubtagAndTakesNoLanguageGiven() {
    List<String> english = List.of("en");
    Settings british =
        Settings.canonical("offline", "m", null, "en-GB", null, null, null, List.of());
    Settings german = Settings.canonical("offline", "m", null, "de", null, null, null, List.of());
    Settings unsaid = Settings.canonical("offline", "m", null, null, null, null, null, List.of());

    british.requireLanguageIn(english, "offline");
    unsaid.requireLanguageIn(english, "offline");
    german.requireLanguageIn(List.of(), "openai");
    assertThatThrownBy(() -> german.requireLanguageIn(english, "offline"))
        .isInstanceOfSatisfying(
            InvalidSettingException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(InvalidSettingException.Kind.NOT_OFFERED);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "language 'de' is not recognised by the offline engine; it recognises: en");
            });
  }
}
