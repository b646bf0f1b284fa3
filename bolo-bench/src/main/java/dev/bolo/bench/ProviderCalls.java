package dev.bolo.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

/** The provider stand-in's count of the calls it has answered (its {@code /calls}). */
final class ProviderCalls {

  private ProviderCalls() {}

  static long count(HttpClient http, int providerPort) throws Exception {
    return Long.parseLong(
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + providerPort + "/calls"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body()
            .trim());
  }

  /**
   * The stand-in's call count once it has stopped changing: requests the load generator abandoned
   * when a round ended still run to the provider (a disconnect never cancels work), and must not be
   * counted as the next phase's.
   */
  static long countOnceQuiet(HttpClient http, int providerPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long calls = count(http, providerPort);
    while (System.nanoTime() < deadline) {
      Thread.sleep(1_000);
      long now = count(http, providerPort);
      if (now == calls) {
        return now;
      }
      calls = now;
    }
    throw new IllegalStateException("the provider stand-in kept receiving calls for a minute");
  }
}
