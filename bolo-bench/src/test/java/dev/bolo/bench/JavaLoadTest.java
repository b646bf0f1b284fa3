package dev.bolo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The large-note load generator sends what wrk's script sends, and counts as wrk does. */
class JavaLoadTest {

  private static final String PLACEHOLDER = "@".repeat(24);

  private HttpServer server;
  private final List<byte[]> bodies = new CopyOnWriteArrayList<>();
  private final Set<String> tokens = ConcurrentHashMap.newKeySet();
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext(
        "/",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            bodies.add(body);
            tokens.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            // Every third request is refused, as an overloaded gateway would.
            int status = requests.incrementAndGet() % 3 == 0 ? 503 : 200;
            exchange.sendResponseHeaders(status, -1);
          }
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  @Test
  void everyRequestCarriesTheWholeBodyWithItsOwnIdInThePlaceholdersPlace() throws Exception {
    // Larger than several slices, the placeholder neither at a slice's edge nor at the ends.
    byte[] body = new byte[300_000];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) (i * 31 + 7);
    }
    int at = 100_003;
    System.arraycopy(PLACEHOLDER.getBytes(StandardCharsets.US_ASCII), 0, body, at, 24);

    LoadResult result =
        JavaLoad.run(
            body,
            "multipart/form-data; boundary=x",
            "http://127.0.0.1:" + server.getAddress().getPort() + "/upload",
            java.util.List.of("secret-token", "second-phone"),
            4,
            2,
            10,
            "testrun1");

    assertThat(result.requests()).isPositive();
    // Counted are the answers within the round; the server may have seen a few more.
    assertThat(bodies.size()).isGreaterThanOrEqualTo((int) result.requests());
    assertThat(result.statusErrors())
        .isBetween(result.requests() / 3 - 4, result.requests() / 3 + 4);
    assertThat(result.timeouts()).isZero();
    assertThat(result.socketErrors()).isZero();
    assertThat(result.p99Micros()).isGreaterThanOrEqualTo(result.p50Micros()).isPositive();
    // Connection i sends as device i % 2: both devices' tokens arrive, and nothing else.
    assertThat(tokens).containsExactlyInAnyOrder("Bearer secret-token", "Bearer second-phone");

    Set<String> ids = ConcurrentHashMap.newKeySet();
    for (byte[] sent : bodies) {
      assertThat(sent).hasSameSizeAs(body);
      assertThat(Arrays.equals(sent, 0, at, body, 0, at)).as("before the id").isTrue();
      assertThat(Arrays.equals(sent, at + 24, body.length, body, at + 24, body.length))
          .as("after the id")
          .isTrue();
      String id = new String(sent, at, 24, StandardCharsets.US_ASCII);
      assertThat(id).startsWith("testrun1").doesNotContain("@");
      ids.add(id);
    }
    assertThat(ids).as("every note unique").hasSize(bodies.size());
  }
}
