package dev.bolo.server.config;

import dev.bolo.server.config.ServerConfig.ConfigException;
import dev.bolo.server.redis.RedisEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The variables' text as set, read through each {@link Variable}'s parser and default. A blank
 * value counts as unset. Immutable.
 */
final class VariableValues {

  private final Map<String, String> values;

  VariableValues(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  /** The trimmed value as set, or null when unset or blank; no default applies. */
  @Nullable String optional(Variable variable) {
    return named(variable.name());
  }

  /**
   * The trimmed value of a variable whose name is made at run time ({@code BOLO_ENGINE_<NAME>_*}),
   * or null when unset or blank.
   */
  @Nullable String named(String name) {
    String value = values.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  /**
   * The variables whose names begin with {@code prefix}, as set: another library's own (the
   * OpenTelemetry SDK's {@code OTEL_*}), which it reads and checks itself.
   */
  Map<String, String> prefixed(String prefix) {
    Map<String, String> found = new HashMap<>();
    values.forEach(
        (name, value) -> {
          if (name.startsWith(prefix) && !value.isBlank()) {
            found.put(name, value.trim());
          }
        });
    return found;
  }

  /** The value as set, else the variable's default. */
  String text(Variable variable) {
    String value = optional(variable);
    return value != null ? value : defaultOf(variable);
  }

  /** A key, checked when set; null when unset. */
  @Nullable String secret(Variable variable) {
    String value = optional(variable);
    return value == null
        ? null
        : parser(variable, VariableParser.Secret.class).parse(variable.name(), value);
  }

  /**
   * A file that must exist and be readable when set (a CA bundle, say); null when unset.
   *
   * @throws ConfigException naming the variable and the file otherwise
   */
  @Nullable Path readableFile(Variable variable) {
    String value = optional(variable);
    if (value == null) {
      return null;
    }
    Path file = Path.of(value);
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ConfigException(variable.name() + ": cannot read the file " + file);
    }
    return file;
  }

  /**
   * A Redis URL (a server, a cluster's seed nodes comma-separated, a sentinel), checked when set;
   * null when unset. A malformed one is refused without echoing it: it may carry a password.
   */
  @Nullable String redisUrl(Variable variable) {
    String value = optional(variable);
    if (value != null) {
      try {
        RedisEndpoint.parse(value);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            variable.name() + " must be redis://host:port or a comma-separated list of them");
      }
    }
    return value;
  }

  String url(Variable variable) {
    return parser(variable, VariableParser.Url.class).parse(variable.name(), text(variable));
  }

  long whole(Variable variable) {
    return parser(variable, VariableParser.Whole.class).parse(variable.name(), text(variable));
  }

  /** A whole number whose default is worked out from elsewhere (the heap, the cores). */
  long whole(Variable variable, long fallback) {
    String value = optional(variable);
    return value == null
        ? fallback
        : parser(variable, VariableParser.Whole.class).parse(variable.name(), value);
  }

  /** A whole number with no default: empty when unset. */
  java.util.OptionalLong optionalWhole(Variable variable) {
    return optional(variable) == null
        ? java.util.OptionalLong.empty()
        : java.util.OptionalLong.of(whole(variable));
  }

  /**
   * A whole number as set under its name, else as set under its {@code former} name (read for one
   * release after a rename), else its default; within an {@code int}.
   */
  int integerOrFormer(Variable variable, Variable former) {
    return optional(variable) == null && optional(former) != null
        ? integer(former)
        : integer(variable);
  }

  /** A whole number whose parser's bounds keep it within an {@code int}. */
  int integer(Variable variable) {
    return Math.toIntExact(whole(variable));
  }

  Duration duration(Variable variable) {
    return parser(variable, VariableParser.Span.class).parse(variable.name(), text(variable));
  }

  /** A duration whose default is worked out from elsewhere (the engine). */
  Duration duration(Variable variable, Duration fallback) {
    String value = optional(variable);
    return value == null
        ? fallback
        : parser(variable, VariableParser.Span.class).parse(variable.name(), value);
  }

  List<Duration> durations(Variable variable) {
    return parser(variable, VariableParser.Durations.class).parse(variable.name(), text(variable));
  }

  /** A comma-separated list of names with {@code first} always first. */
  List<String> names(Variable variable, String first) {
    List<String> names = new ArrayList<>(List.of(first));
    String value = optional(variable);
    if (value != null) {
      for (String name :
          parser(variable, VariableParser.Names.class).parse(variable.name(), value)) {
        if (!names.contains(name)) {
          names.add(name);
        }
      }
    }
    return List.copyOf(names);
  }

  /** A comma-separated list of {@code host:port}; empty when unset. */
  List<String> hostPorts(Variable variable) {
    String value = optional(variable);
    return value == null
        ? List.of()
        : parser(variable, VariableParser.HostPorts.class).parse(variable.name(), value);
  }

  <E extends Enum<E>> E choice(Variable variable, Class<E> type) {
    VariableParser.Choice<?> choice = parser(variable, VariableParser.Choice.class);
    Object value = choice.parse(variable.name(), text(variable));
    return type.cast(value);
  }

  private static String defaultOf(Variable variable) {
    String fallback = variable.defaultValue();
    if (fallback == null) {
      throw new IllegalStateException(variable + " has no default: read it with optional()");
    }
    return fallback;
  }

  /** The variable's parser as the kind the caller reads; another kind is a bug in the caller. */
  private static <P extends VariableParser> P parser(Variable variable, Class<P> kind) {
    if (!kind.isInstance(variable.parser())) {
      throw new IllegalStateException(
          variable + " is read as " + kind.getSimpleName() + " but parsed as " + variable.parser());
    }
    return kind.cast(variable.parser());
  }
}
