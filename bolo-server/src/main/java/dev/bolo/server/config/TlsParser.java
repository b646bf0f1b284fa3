package dev.bolo.server.config;

import static dev.bolo.server.config.Variable.BOLO_TLS;
import static dev.bolo.server.config.Variable.BOLO_TLS_CERT;
import static dev.bolo.server.config.Variable.BOLO_TLS_KEY;
import static dev.bolo.server.config.Variable.BOLO_TLS_NAMES;

import dev.bolo.server.config.ServerConfig.ConfigException;
import dev.bolo.server.tls.TlsConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code BOLO_TLS}, {@code BOLO_TLS_CERT}, {@code BOLO_TLS_KEY} and {@code BOLO_TLS_NAMES}
 * into a {@link TlsConfig}, each mistake a one-line {@link ConfigException} naming the variable.
 * Stateless.
 */
final class TlsParser {

  private TlsParser() {}

  static TlsConfig parse(VariableValues env) {
    TlsConfig.Mode mode = env.choice(BOLO_TLS, TlsConfig.Mode.class);
    Path certificate = env.readableFile(BOLO_TLS_CERT);
    Path key = env.readableFile(BOLO_TLS_KEY);
    List<String> names = names(env.optional(BOLO_TLS_NAMES));
    // Each guard says what the operator meant and how to say it.
    if ((certificate == null) != (key == null)) {
      throw new ConfigException("BOLO_TLS_CERT and BOLO_TLS_KEY go together: set both or neither");
    }
    if (mode == TlsConfig.Mode.OFF && (certificate != null || !names.isEmpty())) {
      throw new ConfigException(
          (certificate != null ? "BOLO_TLS_CERT" : "BOLO_TLS_NAMES")
              + " is set but BOLO_TLS is off: set BOLO_TLS=on (or run bolo serve --tls)");
    }
    if (certificate != null && !names.isEmpty()) {
      throw new ConfigException(
          "BOLO_TLS_NAMES is for the gateway's own certificate; with BOLO_TLS_CERT the names are"
              + " the certificate's");
    }
    try {
      return new TlsConfig(mode, certificate, key, names);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "BOLO_TLS_NAMES: " + Objects.requireNonNullElse(e.getMessage(), "a bad name"));
    }
  }

  private static List<String> names(@Nullable String value) {
    List<String> names = new ArrayList<>();
    if (value != null) {
      for (String part : value.split(",", -1)) {
        String name = part.strip();
        if (!name.isEmpty() && !names.contains(name)) {
          names.add(name);
        }
      }
    }
    return names;
  }
}
