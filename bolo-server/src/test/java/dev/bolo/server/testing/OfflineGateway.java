package dev.bolo.server.testing;

import dev.bolo.testkit.Await;
import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link Gateway} on its defaults for a whole test class: the offline engine, no provider and
 * no key, only a port, a data directory of its own and the device alpha ({@link Gateway#TOKEN_A}).
 * It is ready once its speech model has loaded ({@code /readyz} is 200), which takes seconds, so
 * the class shares it. Register it as {@code @RegisterExtension static final OfflineGateway offline
 * = new OfflineGateway();}.
 */
public final class OfflineGateway implements BeforeAllCallback, AfterAllCallback {

  /** Loading the model takes a few seconds alone, far longer on a busy machine. */
  private static final Duration MODEL_LOAD = Duration.ofMinutes(2);

  private final Map<String, String> extra;
  private @Nullable Path dataDir;
  private @Nullable Gateway gateway;

  /** A gateway on its defaults. */
  public OfflineGateway() {
    this(Map.of());
  }

  /** A gateway on its defaults but for {@code extra}, variables a class sets to reach a limit. */
  public OfflineGateway(Map<String, String> extra) {
    this.extra = Map.copyOf(extra);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException, InterruptedException {
    dataDir = Files.createTempDirectory("bolo-offline-");
    Map<String, String> env = new HashMap<>(extra);
    env.put("BOLO_PORT", "0");
    env.put("BOLO_DATA_DIR", dataDir.toString());
    env.put("BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    gateway = Gateway.withEnvironment(env);
    Gateway started = gateway;
    Await.until(MODEL_LOAD, "the offline model loaded", () -> isReady(started));
  }

  private static boolean isReady(Gateway gateway) {
    try {
      return gateway.send(new Request.Builder().url(gateway.url("/readyz")).build()).status()
          == 200;
    } catch (IOException e) {
      return false;
    }
  }

  /** The running gateway. */
  public Gateway gateway() {
    if (gateway == null) {
      throw new IllegalStateException("the gateway is not started");
    }
    return gateway;
  }

  /** A directory of the class's own for files the tests write; deleted after them. */
  public Path dataDir() {
    if (dataDir == null) {
      throw new IllegalStateException("used outside the test class");
    }
    return dataDir;
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    try {
      if (gateway != null) {
        gateway.close();
      }
    } finally {
      gateway = null;
      if (dataDir != null) {
        Directories.deleteTree(dataDir);
      }
      dataDir = null;
    }
  }
}
