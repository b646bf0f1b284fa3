package dev.bolo.server.transcription;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A note's settings as the client sent them, unchecked, named like the POST's form fields: what a
 * handler reads from a form, a query string or a resumable upload's metadata. The use case makes
 * canonical settings of them by one rule, whichever way they came.
 *
 * @param model {@code model}, or null when absent
 * @param language {@code language}, or null when absent
 * @param prompt {@code prompt}, or null when absent
 * @param temperature {@code temperature}, or null when absent
 * @param responseFormat {@code response_format}, or null when absent
 * @param timestampGranularities every {@code timestamp_granularities[]} and {@code
 *     timestamp_granularities} value, in order
 */
public record SettingFields(
    @Nullable String model,
    @Nullable String language,
    @Nullable String prompt,
    @Nullable String temperature,
    @Nullable String responseFormat,
    List<String> timestampGranularities) {

  /** The fields that carry one value each; every other is repeatable. */
  public static final List<String> SINGLE_VALUED =
      List.of("model", "language", "prompt", "temperature", "response_format");

  public SettingFields {
    timestampGranularities = List.copyOf(timestampGranularities);
  }

  /**
   * The fields by their names.
   *
   * @param one a field's value, or null when absent
   * @param all every value of a repeatable field
   */
  public static SettingFields of(
      Function<String, @Nullable String> one, Function<String, List<String>> all) {
    List<String> granularities = new ArrayList<>(all.apply("timestamp_granularities[]"));
    granularities.addAll(all.apply("timestamp_granularities"));
    return new SettingFields(
        one.apply("model"),
        one.apply("language"),
        one.apply("prompt"),
        one.apply("temperature"),
        one.apply("response_format"),
        granularities);
  }

  /**
   * The fields of a resumable upload, one value per name: {@code timestamp_granularities} holds its
   * values joined by commas.
   */
  public static SettingFields of(Map<String, String> fields) {
    return of(
        fields::get,
        name -> {
          String joined = fields.get(name);
          return name.equals("timestamp_granularities") && joined != null && !joined.isBlank()
              ? Arrays.stream(joined.split(",")).map(String::trim).toList()
              : List.of();
        });
  }
}
