package dev.bolo.server.engine.route;

import java.util.Objects;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * One engine of {@code BOLO_ENGINES}, as {@code BOLO_ENGINE_<NAME>_*} configures it.
 *
 * @param name the engine's name in routes, lower case
 * @param kind {@code openai}, {@code azure}, {@code deepgram}, {@code gemini} or {@code offline}
 * @param baseUrl the provider's API; null for the offline engine or the kind's default
 * @param apiKey the provider key, from the variable or the file {@code _API_KEY_FILE} names
 * @param maxConcurrent calls in flight to this engine, when bounded
 * @param maxPerMinute calls started per minute, when bounded
 */
public record EngineSpec(
    String name,
    Kind kind,
    @Nullable String baseUrl,
    @Nullable String apiKey,
    OptionalInt maxConcurrent,
    OptionalInt maxPerMinute) {

  /** What an engine speaks. */
  public enum Kind {
    OPENAI,
    AZURE,
    DEEPGRAM,
    GEMINI,
    OFFLINE
  }

  public EngineSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(maxConcurrent, "maxConcurrent");
    Objects.requireNonNull(maxPerMinute, "maxPerMinute");
  }

  @Override
  public String toString() {
    // The key stays out of logs.
    return "EngineSpec[" + name + ", " + kind + ", " + baseUrl + "]";
  }
}
