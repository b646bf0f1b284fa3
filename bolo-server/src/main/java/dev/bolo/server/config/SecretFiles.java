package dev.bolo.server.config;

import dev.bolo.server.config.ServerConfig.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The Docker and Kubernetes secrets convention: any variable may instead be given as {@code
 * <variable>_FILE}, the path of a file holding its value (an API key, the admin token, a database
 * or Redis URL with its password). Read once at start, surrounding whitespace and the final newline
 * dropped; the value is never logged. Stateless.
 */
final class SecretFiles {

  private static final String SUFFIX = "_FILE";

  private SecretFiles() {}

  /**
   * {@code variables} with every {@code <variable>_FILE} replaced by the variable and the file's
   * text.
   *
   * @throws ConfigException when both are set, or the file cannot be read or is empty
   */
  static Map<String, String> resolve(Map<String, String> variables) {
    Map<String, String> resolved = new HashMap<>(variables);
    for (Map.Entry<String, String> entry : variables.entrySet()) {
      String name = entry.getKey();
      if (!name.startsWith("BOLO_") || !name.endsWith(SUFFIX) || entry.getValue().isBlank()) {
        continue;
      }
      String variable = name.substring(0, name.length() - SUFFIX.length());
      String direct = variables.get(variable);
      if (direct != null && !direct.isBlank()) {
        throw new ConfigException(variable + " and " + name + " are both set; set one");
      }
      Path file = Path.of(entry.getValue().trim());
      String value;
      try {
        value = Files.readString(file, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new ConfigException(name + ": cannot read " + file + ": " + e.getMessage());
      }
      if (value.isEmpty()) {
        throw new ConfigException(name + ": " + file + " is empty");
      }
      resolved.remove(name);
      resolved.put(variable, value);
    }
    return resolved;
  }
}
