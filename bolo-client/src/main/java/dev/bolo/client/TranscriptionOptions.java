package dev.bolo.client;

import org.jspecify.annotations.Nullable;

/**
 * Settings sent with a note; a null setting is left out so the gateway uses its default.
 *
 * @param language ISO-639-1 language of the speech, such as {@code en}
 * @param model the engine's model name
 * @param prompt text that guides the engine's spelling and style
 */
public record TranscriptionOptions(
    @Nullable String language, @Nullable String model, @Nullable String prompt) {

  private static final TranscriptionOptions DEFAULTS = new TranscriptionOptions(null, null, null);

  public TranscriptionOptions {
    requireNotBlank("language", language);
    requireNotBlank("model", model);
  }

  /** No settings: the gateway's defaults for everything. */
  public static TranscriptionOptions defaults() {
    return DEFAULTS;
  }

  /** These options with {@code language} set (null to remove it). */
  public TranscriptionOptions withLanguage(@Nullable String language) {
    return new TranscriptionOptions(language, model, prompt);
  }

  /** These options with {@code model} set (null to remove it). */
  public TranscriptionOptions withModel(@Nullable String model) {
    return new TranscriptionOptions(language, model, prompt);
  }

  /** These options with {@code prompt} set (null to remove it). */
  public TranscriptionOptions withPrompt(@Nullable String prompt) {
    return new TranscriptionOptions(language, model, prompt);
  }

  private static void requireNotBlank(String name, @Nullable String value) {
    // A blank setting is a caller's bug; sending it would only earn a 400 from the gateway.
    if (value != null && value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank: '" + value + "'");
    }
  }
}
