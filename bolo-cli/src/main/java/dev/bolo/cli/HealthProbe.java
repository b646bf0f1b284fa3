package dev.bolo.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.Map;

/**
 * The container image's health check: asks the gateway in the same container for {@code GET
 * /readyz} and exits 0 when it answers 200 (ready or degraded), 1 otherwise. It uses only the JDK,
 * so a JVM starts and finishes it in a fraction of a second, and reads the port from {@code
 * BOLO_PORT} as the gateway does.
 */
public final class HealthProbe {

  /** Docker runs the check with its own timeout; the probe gives up well within it. */
  private static final int TIMEOUT_MILLIS = 5_000;

  private HealthProbe() {}

  public static void main(String[] args) {
    URI uri;
    try {
      uri = readinessUri(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("bolo health: " + e.getMessage());
      System.exit(1);
      return;
    }
    int status = status(uri);
    if (status != 200) {
      System.err.println("bolo health: GET " + uri + " -> " + (status < 0 ? "no answer" : status));
    }
    System.exit(status == 200 ? 0 : 1);
  }

  /** The readiness address of the gateway configured by {@code env}, seen from its own host. */
  static URI readinessUri(Map<String, String> env) {
    return URI.create(GatewayAddress.local(env).url() + "/readyz");
  }

  /** The HTTP status of {@code GET uri}, or -1 when nothing answered. */
  private static int status(URI uri) {
    try {
      HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
      connection.setConnectTimeout(TIMEOUT_MILLIS);
      connection.setReadTimeout(TIMEOUT_MILLIS);
      int status = connection.getResponseCode();
      try (InputStream body =
          status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
        if (body != null) {
          body.transferTo(java.io.OutputStream.nullOutputStream());
        }
      }
      return status;
    } catch (IOException | IllegalArgumentException e) {
      return -1;
    }
  }
}
