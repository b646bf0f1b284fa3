package dev.bolo.server.testing;

import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real gateway on a loopback port, with the OpenAI-compatible engine pointed at a fake provider
 * whose failures, latency and holding the test scripts; one per test. Other modules' tests (the
 * CLI's and the SDK's end to end) reach it through bolo-server's test jar and add their clients.
 */
public class ScriptedGateway implements BeforeEachCallback, AfterEachCallback {

  public static final String TOKEN = "end-to-end-token-0123456789";

  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger successes = new AtomicInteger();
  private final List<String> traceparents = new CopyOnWriteArrayList<>();
  private volatile int failFirst;
  private volatile Duration delay = Duration.ZERO;
  private volatile @Nullable CountDownLatch hold;
  private volatile CountDownLatch called = new CountDownLatch(1);
  private @Nullable MockWebServer provider;
  private @Nullable App gateway;
  private @Nullable Path dataDir;
  private final Map<String, String> extra;

  /** A gateway on the variables below alone. */
  public ScriptedGateway() {
    this(Map.of());
  }

  /** A gateway on the variables below and then {@code extra}. */
  public ScriptedGateway(Map<String, String> extra) {
    this.extra = Map.copyOf(extra);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    dataDir = Files.createTempDirectory("bolo-gateway");
    MockWebServer fake = new MockWebServer();
    fake.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            int call = calls.incrementAndGet();
            String traceparent = request.getHeaders().get("traceparent");
            if (traceparent != null) {
              traceparents.add(traceparent);
            }
            called.countDown();
            CountDownLatch held = hold;
            if (held != null) {
              held.await(30, TimeUnit.SECONDS);
            }
            if (call <= failFirst) {
              return new MockResponse.Builder().code(503).body("{\"error\":\"busy\"}").build();
            }
            // A provider's latency is the behaviour the test scripts, not a wait for something.
            Thread.sleep(delay.toMillis());
            successes.incrementAndGet();
            return new MockResponse.Builder()
                .code(200)
                .body("{\"text\":\"note number " + call + "\"}")
                .build();
          }
        });
    fake.start();
    provider = fake;
    Map<String, String> env =
        new java.util.HashMap<>(
            Map.of(
                "BOLO_PORT",
                "0",
                "BOLO_ENGINE",
                "openai",
                "BOLO_OPENAI_BASE_URL",
                fake.url("/v1").toString(),
                "BOLO_DATA_DIR",
                dataDir.toString(),
                "BOLO_DEVICE_TOKENS",
                "phone=" + TOKEN));
    env.putAll(extra);
    gateway = App.create(ServerConfig.fromMap(env)).start();
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    CountDownLatch held = hold;
    if (held != null) {
      held.countDown();
    }
    if (gateway != null) {
      gateway.close();
    }
    if (provider != null) {
      provider.close();
    }
    if (dataDir != null) {
      Directories.deleteTree(dataDir);
    }
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  public int port() {
    return java.util.Objects.requireNonNull(gateway).port();
  }

  /** The provider answers 503 to its first {@code calls} calls. */
  public void failFirst(int calls) {
    this.failFirst = calls;
  }

  /** The provider takes this long for each success. */
  public void delay(Duration delay) {
    this.delay = delay;
  }

  /** The provider holds every call until the test ends (or 30 s). */
  public void holdCalls() {
    this.hold = new CountDownLatch(1);
  }

  /** Waits until the provider has been called once. */
  public boolean awaitFirstCall() throws InterruptedException {
    return called.await(10, TimeUnit.SECONDS);
  }

  public int calls() {
    return calls.get();
  }

  public int successes() {
    return successes.get();
  }

  /** The {@code traceparent} of each provider call that carried one, in order. */
  public List<String> traceparents() {
    return List.copyOf(traceparents);
  }
}
