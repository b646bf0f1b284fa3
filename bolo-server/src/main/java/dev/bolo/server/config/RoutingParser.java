package dev.bolo.server.config;

import static dev.bolo.server.config.Variable.BOLO_ENGINES;
import static dev.bolo.server.config.Variable.BOLO_ROUTES;

import dev.bolo.server.config.ServerConfig.ConfigException;
import dev.bolo.server.engine.EngineKind;
import dev.bolo.server.engine.offline.OfflineEngine;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.engine.route.EngineSpec;
import dev.bolo.server.engine.route.Route;
import dev.bolo.server.engine.route.Routing;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * Reads several engines and their routes: {@code BOLO_ENGINES=primary,backup}, then for each name
 * {@code BOLO_ENGINE_<NAME>_KIND}, {@code _BASE_URL}, {@code _API_KEY} (or {@code _API_KEY_FILE}),
 * {@code _MAX_CONCURRENT}, {@code _MAX_PER_MINUTE}, and {@code BOLO_ROUTES}. Unset {@code
 * BOLO_ENGINES} keeps the single engine of {@code BOLO_ENGINE}, read as a route of one target per
 * model ({@link #alone}). Stateless.
 */
final class RoutingParser {

  /** The prefix of every engine's own variables; the name follows in upper case. */
  private static final String PREFIX = "BOLO" + "_ENGINE_";

  private RoutingParser() {}

  /** The routing configured, or null when {@code BOLO_ENGINES} is unset. */
  static @Nullable Routing parse(VariableValues env) {
    String names = env.optional(BOLO_ENGINES);
    if (names == null) {
      return null;
    }
    List<EngineSpec> engines = new ArrayList<>();
    for (String given : names.split(",")) {
      String name = given.trim().toLowerCase(Locale.ROOT);
      if (!name.matches("[a-z][a-z0-9]{0,31}")) {
        throw new ConfigException(
            "BOLO_ENGINES: an engine name is a letter then letters or digits, at most 32: '"
                + given.trim()
                + "'");
      }
      engines.add(engine(env, name));
    }
    String routes = env.optional(BOLO_ROUTES);
    if (routes == null) {
      throw new ConfigException(
          "BOLO_ROUTES is required with BOLO_ENGINES, e.g. whisper-1=primary/whisper-1,backup/"
              + "whisper-large-v3-turbo");
    }
    try {
      return Routing.of(engines, Route.parse(routes));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("BOLO_ROUTES: " + e.getMessage());
    }
  }

  /**
   * The one engine of {@code BOLO_ENGINE}, as its own variables configure it: a route of one target
   * for each model it offers ({@code BOLO_OPENAI_MODELS}, {@code BOLO_GEMINI_MODELS}, the offline
   * engine's one model).
   */
  static Routing alone(
      EngineKind kind,
      OpenAiConfig openAi,
      ServerConfig.Gemini gemini,
      List<String> openAiModels,
      List<String> geminiModels) {
    OptionalInt unbounded = OptionalInt.empty();
    return switch (kind) {
      case OPENAI ->
          Routing.alone(
              new EngineSpec(
                  kind.wireName(), kind, openAi.baseUrl(), openAi.apiKey(), unbounded, unbounded),
              openAiModels);
      case GEMINI ->
          Routing.alone(
              new EngineSpec(
                  kind.wireName(), kind, gemini.baseUrl(), gemini.apiKey(), unbounded, unbounded),
              geminiModels);
      case OFFLINE ->
          Routing.alone(
              new EngineSpec(kind.wireName(), kind, null, null, unbounded, unbounded),
              List.of(OfflineEngine.MODEL));
      // BOLO_ENGINE does not offer them (EngineKind.ALONE): they have no variables of their own.
      case AZURE, DEEPGRAM ->
          throw new IllegalArgumentException("BOLO_ENGINE offers no " + kind.wireName());
    };
  }

  private static EngineSpec engine(VariableValues env, String name) {
    String prefix = PREFIX + name.toUpperCase(Locale.ROOT) + "_";
    String kindText = env.named(prefix + "KIND");
    if (kindText == null) {
      throw new ConfigException(
          prefix + "KIND is required: openai, azure, deepgram, gemini or offline");
    }
    EngineKind kind;
    try {
      kind = EngineKind.valueOf(kindText.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          prefix
              + "KIND: '"
              + kindText
              + "' is not an engine kind; use openai, azure, deepgram, gemini or offline");
    }
    String baseUrl = env.named(prefix + "BASE_URL");
    if (baseUrl != null && okhttp3.HttpUrl.parse(baseUrl) == null) {
      throw new ConfigException(prefix + "BASE_URL: not an http(s) URL: " + baseUrl);
    }
    // BOLO_ENGINE_<NAME>_API_KEY_FILE was read into the key like every *_FILE (SecretFiles).
    String key = env.named(prefix + "API_KEY");
    if ((kind == EngineKind.GEMINI || kind == EngineKind.AZURE || kind == EngineKind.DEEPGRAM)
        && key == null) {
      throw new ConfigException(prefix + "API_KEY is required for a " + kindText + " engine");
    }
    if (kind == EngineKind.OPENAI && baseUrl == null && key == null) {
      throw new ConfigException(
          prefix + "API_KEY is required for OpenAI's own service (or set " + prefix + "BASE_URL)");
    }
    if (key != null && !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new ConfigException(
          prefix
              + "API_KEY: a key is printable ASCII without spaces (is the file's text more"
              + " than the key?)");
    }
    if (kind == EngineKind.AZURE && baseUrl == null) {
      throw new ConfigException(
          prefix + "BASE_URL is required for an azure engine: https://NAME.openai.azure.com");
    }
    return new EngineSpec(
        name,
        kind,
        baseUrl,
        key,
        count(env, prefix + "MAX_CONCURRENT"),
        count(env, prefix + "MAX_PER_MINUTE"));
  }

  private static OptionalInt count(VariableValues env, String name) {
    String value = env.named(name);
    if (value == null) {
      return OptionalInt.empty();
    }
    try {
      int count = Integer.parseInt(value);
      if (count < 1 || count > 100_000) {
        throw new NumberFormatException();
      }
      return OptionalInt.of(count);
    } catch (NumberFormatException e) {
      throw new ConfigException(name + ": a whole number from 1 to 100000, not '" + value + "'");
    }
  }
}
