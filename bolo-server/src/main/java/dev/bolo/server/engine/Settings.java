package dev.bolo.server.engine;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Every setting that can change a transcript, in canonical form: an absent setting equals its
 * default and equivalent spellings are one value ({@code EN} is {@code en}, {@code 0.50} is {@code
 * 0.5}). Two requests with equal settings and equal audio are the same work.
 *
 * @param engine the engine's name, e.g. {@code openai}
 * @param model the model asked for, or the engine's default when the client named none
 * @param language ISO-639 code in lower case, or empty to let the engine detect it
 * @param prompt the client's prompt exactly as given; empty when absent
 * @param temperature sampling temperature in plain canonical form; {@code 0} when absent (the
 *     OpenAI default)
 * @param responseFormat the output shape; {@code json} when absent
 * @param timestampGranularities sorted; only meaningful for {@code verbose_json}, empty otherwise
 * @param task transcribe in the language spoken, or translate into English
 */
public record Settings(
    String engine,
    String model,
    String language,
    String prompt,
    String temperature,
    ResponseFormat responseFormat,
    List<String> timestampGranularities,
    Task task) {

  public Settings {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(language, "language");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(temperature, "temperature");
    Objects.requireNonNull(responseFormat, "responseFormat");
    timestampGranularities = List.copyOf(timestampGranularities);
    if (engine.isBlank() || model.isBlank()) {
      throw new IllegalArgumentException("engine and model must not be blank: " + engine + model);
    }
  }

  /** Settings of a transcription in the language spoken. */
  public Settings(
      String engine,
      String model,
      String language,
      String prompt,
      String temperature,
      ResponseFormat responseFormat,
      List<String> timestampGranularities) {
    this(
        engine,
        model,
        language,
        prompt,
        temperature,
        responseFormat,
        timestampGranularities,
        Task.TRANSCRIBE);
  }

  /** The same settings for {@code task}. */
  public Settings withTask(Task task) {
    return new Settings(
        engine, model, language, prompt, temperature, responseFormat, timestampGranularities, task);
  }

  /**
   * Builds canonical settings from what a client sent.
   *
   * @throws InvalidSettingException naming the parameter when a value is out of range
   */
  public static Settings canonical(
      String engine,
      String defaultModel,
      @Nullable String model,
      @Nullable String language,
      @Nullable String prompt,
      @Nullable String temperature,
      @Nullable String responseFormat,
      List<String> timestampGranularities) {
    String givenModel = trimmed(model);
    String canonicalModel = givenModel.isEmpty() ? defaultModel : givenModel;
    String canonicalLanguage = trimmed(language).toLowerCase(Locale.ROOT);
    if (!canonicalLanguage.isEmpty()
        && (canonicalLanguage.length() > MAX_LANGUAGE_CHARS
            || !canonicalLanguage.matches("[a-z]{2,3}([-_][a-z0-9]{2,8})*"))) {
      throw new InvalidSettingException(
          "language",
          "language must be a language code such as en or pt-BR, at most "
              + MAX_LANGUAGE_CHARS
              + " characters");
    }
    if (prompt != null && prompt.length() > MAX_PROMPT_CHARS) {
      throw new InvalidSettingException(
          "prompt", "prompt must be at most " + MAX_PROMPT_CHARS + " characters");
    }
    if (timestampGranularities.size() > MAX_GRANULARITIES) {
      throw new InvalidSettingException(
          "timestamp_granularities[]",
          "at most " + MAX_GRANULARITIES + " timestamp_granularities[] values (word, segment)");
    }
    String givenFormat = trimmed(responseFormat);
    ResponseFormat format =
        givenFormat.isEmpty()
            ? ResponseFormat.JSON
            : ResponseFormat.fromWire(givenFormat)
                .orElseThrow(
                    () ->
                        new InvalidSettingException(
                            "response_format",
                            "unknown response_format: "
                                + ClientText.shown(givenFormat, 16)
                                + "; use json, text, srt, vtt or verbose_json"));
    SortedSet<String> granularities = new TreeSet<>();
    if (format == ResponseFormat.VERBOSE_JSON) {
      for (String granularity : timestampGranularities) {
        String g = granularity.trim().toLowerCase(Locale.ROOT);
        if (!g.equals("word") && !g.equals("segment")) {
          throw new InvalidSettingException(
              "timestamp_granularities[]",
              "unknown timestamp granularity: "
                  + ClientText.shown(granularity, 16)
                  + "; use word or segment");
        }
        granularities.add(g);
      }
      // OpenAI's default when none is named.
      if (granularities.isEmpty()) {
        granularities.add("segment");
      }
    }
    return new Settings(
        engine,
        canonicalModel,
        canonicalLanguage,
        prompt == null ? "" : prompt,
        canonicalTemperature(temperature),
        format,
        List.copyOf(granularities));
  }

  /** Language tags in use (pt-BR, zh-Hant-TW, yue) are far shorter; BCP 47 advises 35. */
  static final int MAX_LANGUAGE_CHARS = 35;

  /**
   * Whisper reads only the last 224 tokens of a prompt; newer models take more. 4096 characters
   * covers every provider's use and keeps the work key and the provider request small.
   */
  public static final int MAX_PROMPT_CHARS = 4096;

  /** Two values exist (word, segment); a few repeats are harmless, dozens are not a request. */
  static final int MAX_GRANULARITIES = 4;

  /** A temperature in [0, 1] needs no more digits than this; longer text is not a temperature. */
  private static final int MAX_TEMPERATURE_CHARS = 32;

  /** "0." and this many decimals fill {@link #MAX_TEMPERATURE_CHARS}. */
  static final int MAX_TEMPERATURE_DECIMALS = MAX_TEMPERATURE_CHARS - 2;

  private static String canonicalTemperature(@Nullable String temperature) {
    String given = trimmed(temperature);
    if (given.isEmpty()) {
      return "0";
    }
    // Checked before parsing: BigDecimal takes exponents like 1e-999999999, whose plain form is a
    // billion characters.
    if (given.length() > MAX_TEMPERATURE_CHARS || !given.matches("[0-9.]+")) {
      throw new InvalidSettingException(
          "temperature",
          "temperature must be a decimal number in [0, 1] of at most "
              + MAX_TEMPERATURE_CHARS
              + " characters");
    }
    BigDecimal value;
    try {
      value = new BigDecimal(given);
    } catch (NumberFormatException e) {
      throw new InvalidSettingException("temperature", "not a number: " + given);
    }
    if (value.signum() < 0 || value.compareTo(BigDecimal.ONE) > 0) {
      throw new InvalidSettingException("temperature", "temperature must be in [0, 1]: " + given);
    }
    if (value.signum() == 0) {
      return "0";
    }
    BigDecimal canonical = value.stripTrailingZeros();
    // The canonical form gains a leading "0" (".5" is "0.5"): with more decimals than this, text
    // within the limit would canonicalise to text beyond it, which a second parse refuses.
    if (canonical.scale() > MAX_TEMPERATURE_DECIMALS) {
      throw new InvalidSettingException(
          "temperature",
          "temperature must have at most " + MAX_TEMPERATURE_DECIMALS + " decimals: " + given);
    }
    return canonical.toPlainString();
  }

  /** Absent and blank are the same as not sent. */
  private static String trimmed(@Nullable String value) {
    return value == null ? "" : value.trim();
  }

  /**
   * Refuses a model this gateway does not offer, so a device cannot pick an expensive model on the
   * operator's key.
   *
   * @param allowed the offered models
   * @param aliases other names of the offered models, named in the refusal too
   * @throws InvalidSettingException of kind {@code NOT_OFFERED} naming the offered models and their
   *     aliases
   */
  public void requireModelIn(List<String> allowed, ModelAliases aliases) {
    if (!allowed.contains(model)) {
      throw new InvalidSettingException(
          "model",
          "model '"
              + ClientText.shown(model, 64)
              + "' is not offered here; allowed: "
              + aliases.namesOf(allowed),
          InvalidSettingException.Kind.NOT_OFFERED);
    }
  }

  /**
   * Refuses a language the engine does not recognise, before any audio is sent to it: the primary
   * subtag decides ({@code en-gb} is {@code en}).
   *
   * @param recognised the engine's languages; empty when it takes any
   * @throws InvalidSettingException of kind {@code NOT_OFFERED} naming the engine's languages
   */
  public void requireLanguageIn(List<String> recognised, String engineName) {
    if (recognised.isEmpty() || !hasLanguage()) {
      return;
    }
    String primary = language.split("[-_]", 2)[0];
    if (!recognised.contains(primary)) {
      throw new InvalidSettingException(
          "language",
          "language '"
              + ClientText.shown(language, 16)
              + "' is not recognised by the "
              + engineName
              + " engine; it recognises: "
              + String.join(", ", recognised),
          InvalidSettingException.Kind.NOT_OFFERED);
    }
  }

  /** True when the client named a language; false lets the engine detect it. */
  public boolean hasLanguage() {
    return !language.isEmpty();
  }

  /** True unless the temperature is the default 0. */
  public boolean hasTemperature() {
    return !temperature.equals("0");
  }
}
