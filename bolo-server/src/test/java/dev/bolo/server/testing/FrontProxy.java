package dev.bolo.server.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A reverse proxy on a loopback port in front of a gateway, as a load balancer sits in front of it
 * in production: a browser opens the pages through it, so the page and the API share its origin. It
 * remembers every note uploaded through it, and can answer the next uploads itself with a scripted
 * failure (after reading the body, as an overloaded gateway does), or lose the gateway's answer to
 * them (as a balancer that times out while the gateway still works does), to show what a client
 * does then. Thread safe.
 */
public final class FrontProxy implements AutoCloseable {

  /**
   * One upload as it passed through: what the client sent (its bearer token among it) and what the
   * client got back.
   */
  public record Upload(
      @Nullable String idempotencyKey,
      @Nullable String audioSha256,
      @Nullable String durationMs,
      int status,
      @Nullable String replayed,
      @Nullable String token) {}

  /** Hop-by-hop headers and those the JDK's client sets itself. */
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "host",
          "connection",
          "content-length",
          "expect",
          "upgrade",
          "transfer-encoding",
          "keep-alive",
          "te",
          "trailer");

  private final String target;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<Upload> uploads = new CopyOnWriteArrayList<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private volatile int failureStatus = 503;
  private final AtomicInteger lostAnswersLeft = new AtomicInteger();

  private FrontProxy(String target) throws IOException {
    this.target = target;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A proxy to the gateway at {@code baseUrl} ({@code http://127.0.0.1:PORT}). */
  public static FrontProxy inFrontOf(String baseUrl) throws IOException {
    return new FrontProxy(baseUrl.replaceAll("/+$", ""));
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /**
   * The next {@code count} uploads are answered by the proxy with {@code status} and the gateway's
   * JSON error ({@code upstream_unavailable}), without reaching the gateway.
   */
  public void failNextUploads(int count, int status) {
    failureStatus = status;
    failuresLeft.set(count);
  }

  /**
   * The next {@code count} uploads reach the gateway, and the client gets {@code status} and the
   * JSON error of a balancer's timeout ({@code upstream_timeout}) instead of the gateway's answer.
   */
  public void loseNextAnswers(int count, int status) {
    failureStatus = status;
    lostAnswersLeft.set(count);
  }

  /** Every upload so far, in order of arrival. */
  public List<Upload> uploads() {
    return List.copyOf(uploads);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      boolean upload =
          exchange.getRequestMethod().equals("POST")
              && exchange.getRequestURI().getPath().equals("/v1/transcriptions");
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      String sha256 = exchange.getRequestHeaders().getFirst("X-Bolo-Audio-Sha256");
      String durationMs = exchange.getRequestHeaders().getFirst("X-Bolo-Audio-Duration-Ms");
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      String token =
          authorization != null && authorization.startsWith("Bearer ")
              ? authorization.substring("Bearer ".length())
              : null;
      if (upload && failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        fail(exchange, "the engine is overloaded; retry shortly", "upstream_unavailable");
        uploads.add(new Upload(key, sha256, durationMs, failureStatus, null, token));
        return;
      }
      HttpResponse<byte[]> answer = forward(exchange, body);
      if (upload && lostAnswersLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        fail(exchange, "the gateway did not answer in time", "upstream_timeout");
        uploads.add(new Upload(key, sha256, durationMs, failureStatus, null, token));
        return;
      }
      for (Map.Entry<String, List<String>> header : answer.headers().map().entrySet()) {
        if (!NOT_FORWARDED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
          exchange.getResponseHeaders().put(header.getKey(), header.getValue());
        }
      }
      byte[] answerBody = answer.body();
      exchange.sendResponseHeaders(
          answer.statusCode(), answerBody.length == 0 ? -1 : answerBody.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answerBody);
      }
      if (upload) {
        uploads.add(
            new Upload(
                key,
                sha256,
                durationMs,
                answer.statusCode(),
                answer.headers().firstValue("Idempotent-Replayed").orElse(null),
                token));
      }
    }
  }

  private void fail(HttpExchange exchange, String message, String code) throws IOException {
    byte[] error =
        ("{\"error\":\"" + message + "\",\"code\":\"" + code + "\",\"request_id\":\"proxy\"}")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(failureStatus, error.length);
    exchange.getResponseBody().write(error);
  }

  private HttpResponse<byte[]> forward(HttpExchange exchange, byte[] body) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI()))
            .method(
                exchange.getRequestMethod(),
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
      if (NOT_FORWARDED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
        continue;
      }
      for (String value : header.getValue()) {
        request.header(header.getKey(), value);
      }
    }
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while forwarding", e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
    client.close();
  }
}
