package dev.bolo.cli;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where a client command finds the gateway, and what named that address (for the message when
 * nothing answers there). {@code --server} wins, then {@code BOLO_SERVER}, then the address {@code
 * bolo serve} listens on with the same environment ({@code BOLO_HOST}, {@code BOLO_PORT}, either
 * alone with the other's default), then {@value #DEFAULT}. Immutable.
 *
 * @param url the gateway's base URL as given or made, such as {@code http://127.0.0.1:8080}
 * @param source what named it: {@code --server}, {@code BOLO_SERVER}, {@code BOLO_PORT}, {@code
 *     BOLO_HOST and BOLO_PORT}, or {@code the default}
 */
record GatewayAddress(String url, String source) {

  /** Where {@code bolo serve} listens when nothing says otherwise. */
  static final String DEFAULT = "http://127.0.0.1:8080";

  /** The source of {@link #DEFAULT}. */
  static final String FROM_DEFAULT = "the default";

  static final String DEFAULT_HOST = "127.0.0.1";
  static final int DEFAULT_PORT = 8080;

  /**
   * The address a client command uses: {@code option} ({@code --server}) when given, else what
   * {@code env} names.
   *
   * @throws IllegalArgumentException when {@code BOLO_PORT} is not a port one can connect to
   */
  static GatewayAddress of(@Nullable String option, Map<String, String> env) {
    if (option != null && !option.isBlank()) {
      return new GatewayAddress(option.strip(), "--server");
    }
    String server = value(env, "BOLO_SERVER");
    if (server != null) {
      return new GatewayAddress(server, "BOLO_SERVER");
    }
    return local(env);
  }

  /**
   * The gateway {@code bolo serve} runs with {@code env}, seen from this host: one listening on
   * every address ({@code 0.0.0.0}, {@code ::}) is reached on loopback.
   *
   * @throws IllegalArgumentException when {@code BOLO_PORT} is not a port one can connect to
   */
  static GatewayAddress local(Map<String, String> env) {
    String host = value(env, "BOLO_HOST");
    String port = value(env, "BOLO_PORT");
    if (host == null && port == null) {
      return new GatewayAddress(DEFAULT, FROM_DEFAULT);
    }
    String source =
        host == null ? "BOLO_PORT" : port == null ? "BOLO_HOST" : "BOLO_HOST and BOLO_PORT";
    return new GatewayAddress(
        "http://" + reachable(host) + ":" + (port == null ? DEFAULT_PORT : connectable(port)),
        source);
  }

  /** The host to connect to for a gateway listening on {@code host}. */
  private static String reachable(@Nullable String host) {
    if (host == null || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
      return DEFAULT_HOST;
    }
    // An IPv6 literal goes in brackets in a URL (RFC 3986 §3.2.2).
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  private static int connectable(String port) {
    try {
      int number = Integer.parseInt(port);
      if (number >= 1 && number <= 65_535) {
        return number;
      }
    } catch (NumberFormatException e) {
      // reported below with the value
    }
    // BOLO_PORT=0 lets the server pick a port; a client cannot know which.
    throw new IllegalArgumentException(
        "BOLO_PORT must be a port from 1 to 65535 to connect to (or give --server): " + port);
  }

  private static @Nullable String value(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }
}
