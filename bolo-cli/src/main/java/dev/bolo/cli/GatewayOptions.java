package dev.bolo.cli;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Timing;
import java.util.Map;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options of every command that talks to a gateway ({@code --server}, {@code --token}) and how
 * they, the environment and the defaults name the gateway and the device. A picocli mixin: one per
 * command run.
 */
final class GatewayOptions {

  @Option(
      names = "--server",
      paramLabel = "URL",
      description =
          "The gateway's base URL, such as http://host:8080; a trailing /v1 (the OpenAI SDKs'"
              + " habit) is accepted. Default: $BOLO_SERVER, else where bolo serve listens with"
              + " the same BOLO_HOST and BOLO_PORT (0.0.0.0 and :: mean 127.0.0.1), else "
              + GatewayAddress.DEFAULT)
  private @Nullable String server;

  @Option(
      names = "--token",
      paramLabel = "T",
      description = "The device token (default: $BOLO_TOKEN).")
  private @Nullable String token;

  /**
   * The gateway, its base URL and the device token this run uses.
   *
   * @param address where the URL came from, for the hint when nothing answers there
   */
  record Connection(GatewayAddress address, HttpUrl baseUrl, String token) {

    /** A client of this gateway that sends with {@code http} and waits with {@code timing}. */
    BoloClient client(OkHttpClient http, Timing timing) {
      return BoloClient.builder()
          .baseUrl(baseUrl)
          .token(token)
          .okHttpClient(http)
          .timing(timing)
          .build();
    }
  }

  /**
   * Resolves the options against {@code env}.
   *
   * @throws ParameterException (a usage error, exit code 2) when the URL is malformed or no token
   *     is given
   */
  Connection resolve(CommandLine commandLine, Map<String, String> env) {
    GatewayAddress address;
    try {
      address = GatewayAddress.of(server, env);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(commandLine, e.getMessage());
    }
    HttpUrl baseUrl = HttpUrl.parse(withoutApiPrefix(address.url()));
    if (baseUrl == null) {
      throw new ParameterException(
          commandLine,
          (address.source().equals("--server") ? "--server" : address.source())
              + " is not an http(s) URL: "
              + address.url());
    }
    String token = this.token != null ? this.token : env.get("BOLO_TOKEN");
    if (token == null || token.isBlank()) {
      throw new ParameterException(commandLine, "no device token: give --token or set BOLO_TOKEN");
    }
    return new Connection(address, baseUrl, token);
  }

  /**
   * The gateway's base URL without the {@code /v1} an OpenAI SDK user habitually adds: the client
   * adds the API path itself.
   */
  static String withoutApiPrefix(String url) {
    String trimmed = url.strip();
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return trimmed.endsWith("/v1") ? trimmed.substring(0, trimmed.length() - 3) : trimmed;
  }
}
