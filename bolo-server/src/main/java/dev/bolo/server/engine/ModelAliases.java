package dev.bolo.server.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Names clients may send for a model ({@code BOLO_MODEL_ALIASES=alias=model,...}): every OpenAI SDK
 * sends a model, most often {@code whisper-1}, and a gateway whose engine has other model names
 * answers to those instead of refusing the note. An alias is resolved before the settings are made
 * canonical, so an alias and the model it stands for are one piece of work. Immutable.
 *
 * @param byAlias each alias and the model it stands for, in the order given
 */
public record ModelAliases(Map<String, String> byAlias) {

  /** The transcription models OpenAI's SDKs and documentation name. */
  public static final List<String> OPENAI_MODEL_NAMES =
      List.of("whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe");

  public ModelAliases {
    Map<String, String> copy = new LinkedHashMap<>();
    byAlias.forEach(
        (alias, model) -> {
          if (alias.isBlank() || model.isBlank()) {
            throw new IllegalArgumentException("an alias and its model must not be blank");
          }
          if (alias.equals(model)) {
            throw new IllegalArgumentException("a model cannot be an alias of itself: " + alias);
          }
          copy.put(alias, model);
        });
    for (String model : copy.values()) {
      if (copy.containsKey(model)) {
        throw new IllegalArgumentException("an alias cannot stand for another alias: " + model);
      }
    }
    byAlias = Collections.unmodifiableMap(copy);
  }

  /** No aliases: a model is asked for by its own name only. */
  public static ModelAliases none() {
    return new ModelAliases(Map.of());
  }

  /** OpenAI's transcription model names, each standing for {@code model}. */
  public static ModelAliases openAiNamesFor(String model) {
    Map<String, String> aliases = new LinkedHashMap<>();
    for (String name : OPENAI_MODEL_NAMES) {
      if (!name.equals(model)) {
        aliases.put(name, model);
      }
    }
    return new ModelAliases(aliases);
  }

  /**
   * Reads {@code alias=model,alias2=model2}; blank is none.
   *
   * @throws IllegalArgumentException naming the entry that is not {@code alias=model}
   */
  public static ModelAliases parse(String text) {
    Map<String, String> aliases = new LinkedHashMap<>();
    for (String entry : text.split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      int equals = entry.indexOf('=');
      if (equals < 1 || equals == entry.length() - 1) {
        throw new IllegalArgumentException("not alias=model: " + entry.trim());
      }
      String alias = entry.substring(0, equals).trim();
      if (aliases.put(alias, entry.substring(equals + 1).trim()) != null) {
        throw new IllegalArgumentException("alias given twice: " + alias);
      }
    }
    return new ModelAliases(aliases);
  }

  /** The model {@code asked} stands for: itself unless it is an alias. */
  public String resolve(String asked) {
    return byAlias.getOrDefault(Objects.requireNonNull(asked, "asked"), asked);
  }

  /** The aliases that stand for {@code model}, in the order given. */
  public List<String> aliasesOf(String model) {
    List<String> aliases = new ArrayList<>();
    byAlias.forEach(
        (alias, target) -> {
          if (target.equals(model)) {
            aliases.add(alias);
          }
        });
    return aliases;
  }

  /**
   * Every name {@code models} may be asked for by, for a refusal that says what is accepted: each
   * model followed by its aliases, as {@code moonshine-tiny-en (also asked for as whisper-1,
   * gpt-4o-transcribe)}.
   */
  public String namesOf(List<String> models) {
    List<String> named = new ArrayList<>();
    for (String model : models) {
      List<String> aliases = aliasesOf(model);
      named.add(
          aliases.isEmpty()
              ? model
              : model + " (also asked for as " + String.join(", ", aliases) + ")");
    }
    return String.join(", ", named);
  }
}
