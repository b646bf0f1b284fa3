package dev.bolo.server.engine.route;

import dev.bolo.server.engine.EngineKind;
import java.util.Objects;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * One engine of {@code BOLO_ENGINES}, as {@code BOLO_ENGINE_<NAME>_*} configures it, or the one
 * engine of {@code BOLO_ENGINE}.
 *
 * @param name the engine's name in routes, lower case
 * @param kind what the engine speaks
 * @param baseUrl the provider's API; null for the offline engine or the kind's default
 * @param apiKey the provider key, from the variable or the file {@code _API_KEY_FILE} names
 * @param maxConcurrent calls in flight to this engine, when bounded
 * @param maxPerMinute calls started per minute, when bounded
 */
public record EngineSpec(
    String name,
    EngineKind kind,
    @Nullable String baseUrl,
    @Nullable String apiKey,
    OptionalInt maxConcurrent,
    OptionalInt maxPerMinute) {

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
