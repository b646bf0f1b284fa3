package dev.bolo.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A harness's command line: {@code --NAME VALUE} pairs, the last of a name winning; a lone last
 * word is ignored. Each value is read with the option's default; a value that is not a number where
 * one is expected fails with {@link NumberFormatException}. Immutable.
 */
final class BenchArgs {

  private final Map<String, String> values;

  private BenchArgs(Map<String, String> values) {
    this.values = values;
  }

  static BenchArgs parse(String[] args) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      values.put(args[i], args[i + 1]);
    }
    return new BenchArgs(values);
  }

  int integer(String name, int orElse) {
    String value = values.get(name);
    return value == null ? orElse : Integer.parseInt(value);
  }

  long longInteger(String name, long orElse) {
    String value = values.get(name);
    return value == null ? orElse : Long.parseLong(value);
  }

  double decimal(String name, double orElse) {
    String value = values.get(name);
    return value == null ? orElse : Double.parseDouble(value);
  }

  String text(String name, String orElse) {
    return values.getOrDefault(name, orElse);
  }

  /** A comma-separated list. */
  List<String> list(String name, String orElse) {
    return List.of(text(name, orElse).split(","));
  }

  /** The value given, or null when the option is absent. */
  @Nullable String optional(String name) {
    return values.get(name);
  }

  /** The first option given whose name is not in {@code known}, or null if there is none. */
  @Nullable String unknownName(List<String> known) {
    for (String name : values.keySet()) {
      if (!known.contains(name)) {
        return name;
      }
    }
    return null;
  }
}
