package dev.bolo.server.testing;

import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One fresh {@link Gateway} per test, its engine the OpenAI-compatible one pointed at a {@link
 * FakeProvider}, its embedded state in a data directory of its own; all three are closed and the
 * directory deleted after the test. Register it as {@code @RegisterExtension final OpenAiGateway
 * fixture = new OpenAiGateway();}.
 *
 * <p>{@link #onDemand} leaves starting the gateway to the test, through {@link #start}, for tests
 * that choose its variables themselves.
 */
public final class OpenAiGateway implements BeforeEachCallback, AfterEachCallback {

  private final Map<String, String> extra;
  private final boolean startsBeforeEach;
  private @Nullable Path dataDir;
  private @Nullable FakeProvider provider;
  private @Nullable Gateway gateway;
  private @Nullable LedgerProbe ledger;

  private OpenAiGateway(Map<String, String> extra, boolean startsBeforeEach) {
    this.extra = Map.copyOf(extra);
    this.startsBeforeEach = startsBeforeEach;
  }

  /** A gateway with the variables of {@link Gateway#openAiEnvironment} alone. */
  public OpenAiGateway() {
    this(Map.of());
  }

  /** A gateway with the variables of {@link Gateway#openAiEnvironment} and then {@code extra}. */
  public OpenAiGateway(Map<String, String> extra) {
    this(extra, true);
  }

  /**
   * A fixture whose gateway starts only when the test calls {@link #start}, with {@code extra} and
   * the test's own variables; the provider and data directory are ready before the test.
   */
  public static OpenAiGateway onDemand(Map<String, String> extra) {
    return new OpenAiGateway(extra, false);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dataDir = Files.createTempDirectory("bolo-gateway-");
    provider = new FakeProvider();
    if (startsBeforeEach) {
      start(Map.of());
    }
  }

  /**
   * Starts the gateway with the fixture's variables and then {@code more}; once per test.
   *
   * @throws IllegalStateException when it already runs
   */
  public Gateway start(Map<String, String> more) {
    if (gateway != null) {
      throw new IllegalStateException("the gateway already runs");
    }
    Map<String, String> env = new HashMap<>(extra);
    env.putAll(more);
    gateway = Gateway.openAi(provider(), dataDir(), env);
    return gateway;
  }

  /** The running gateway. */
  public Gateway gateway() {
    if (gateway == null) {
      throw new IllegalStateException("the gateway is not started");
    }
    return gateway;
  }

  /** The provider the gateway's engine calls. */
  public FakeProvider provider() {
    if (provider == null) {
      throw new IllegalStateException("used outside a test");
    }
    return provider;
  }

  /** The running gateway's embedded ledger, opened on first use and closed after the test. */
  public LedgerProbe ledger() {
    if (ledger == null) {
      ledger = LedgerProbe.open(dataDir(), gateway());
    }
    return ledger;
  }

  /** The gateway's {@code BOLO_DATA_DIR}. */
  public Path dataDir() {
    if (dataDir == null) {
      throw new IllegalStateException("used outside a test");
    }
    return dataDir;
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    if (provider != null) {
      // Held work would keep a closing gateway waiting for it.
      provider.release();
    }
    try (AutoCloseable closeDataDir = this::deleteDataDir;
        FakeProvider closeProvider = provider;
        Gateway closeGateway = gateway;
        LedgerProbe closeLedger = ledger) {
      // closed in reverse order: the test's ledger probe, the gateway, its provider, then its
      // data directory
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      ledger = null;
      gateway = null;
      provider = null;
      dataDir = null;
    }
  }

  private void deleteDataDir() throws IOException {
    if (dataDir != null) {
      Directories.deleteTree(dataDir);
    }
  }
}
