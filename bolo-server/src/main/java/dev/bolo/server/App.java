package dev.bolo.server;

import dev.bolo.server.audio.UploadReader;
import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.UpstreamTimeout;
import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.engine.gemini.GeminiEngines;
import dev.bolo.server.engine.offline.OfflineConfig;
import dev.bolo.server.engine.offline.OfflineEngine;
import dev.bolo.server.engine.openai.OpenAiCompatibleEngine;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.http.Routes;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.RateLimiter;
import io.javalin.Javalin;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import okhttp3.OkHttpClient;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds every part of the gateway from a {@link ServerConfig} and owns their
 * lifecycle. Nothing else creates services; tests create an App on port 0.
 */
public final class App implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(App.class);

  /**
   * Jetty's idle timeout must outlast the longest transcription (120 s cap plus the wait of a
   * duplicate), or a phone waiting for its answer is cut off.
   */
  private static final Duration IDLE_TIMEOUT = Duration.ofMinutes(4);

  private final ServerConfig config;
  private final Javalin javalin;
  private final SpeechEngine engine;
  private final DedupStore store;
  private final Ledger ledger;
  private final OkHttpClient http;
  private final ExecutorService detached;
  private final ScheduledExecutorService renewals;
  private final PrometheusMeterRegistry metrics;
  private final RateLimiter rateLimiter;
  private final ReadinessMonitor readinessMonitor;

  private App(ServerConfig config, Clock clock, LongSupplier ticker) {
    this.config = config;
    this.metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(metrics);
    new JvmThreadMetrics().bindTo(metrics);
    this.http = new OkHttpClient.Builder().connectTimeout(Duration.ofSeconds(10)).build();
    this.detached = Executors.newVirtualThreadPerTaskExecutor();
    this.renewals =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("bolo-lease-renewal").factory());
    this.engine = createEngine(config, http);
    this.store =
        config.store().equals("redis")
            ? DedupStore.redis(
                Objects.requireNonNull(config.redisUrl()),
                config.idempotencyTtl(),
                config.dedupMaxBytes())
            : DedupStore.inMemory(ticker, config.idempotencyTtl(), config.dedupMaxBytes());
    metrics.gauge("bolo_dedup_store_degraded", store, s -> s.isDegraded() ? 1 : 0);
    this.rateLimiter =
        config.store().equals("redis")
            ? RateLimiter.shared(
                Objects.requireNonNull(config.redisUrl()),
                config.rateLimitPerMinute(),
                clock,
                ticker)
            : RateLimiter.perMinute(config.rateLimitPerMinute(), ticker);
    this.ledger = Ledger.jdbc(config.ledgerConfig(clock, ticker), rateLimiter);
    WorkCoordinator coordinator =
        new WorkCoordinator(store, detached, renewals, ticker, config.lease());
    metrics.gauge("bolo_dedup_waiting_copies", coordinator, WorkCoordinator::copiesWaiting);
    Transcriber transcriber =
        new Transcriber(
            engine,
            coordinator,
            store,
            ledger,
            new UpstreamTimeout(
                config.upstreamTimeout(), Duration.ofMillis(500), config.upstreamTimeoutMax()),
            clock,
            metrics);
    Map<String, Supplier<Readiness>> readiness = new LinkedHashMap<>();
    readiness.put("engine", engine::readiness);
    readiness.put("store", store::readiness);
    readiness.put("ledger", ledger::readiness);
    this.readinessMonitor = ReadinessMonitor.start(readiness);
    Routes.Services services =
        new Routes.Services(
            ledger,
            new UploadReader(
                config.maxUploadBytes(), config.inMemoryUploadBytes(), config.spoolDir()),
            transcriber,
            readinessMonitor.kept(),
            metrics);
    this.javalin =
        Javalin.create(
            javalinConfig -> {
              javalinConfig.concurrency.useVirtualThreads = true;
              javalinConfig.startup.showJavalinBanner = false;
              javalinConfig.startup.showOldJavalinVersionWarning = false;
              javalinConfig.jetty.host = config.host();
              javalinConfig.jetty.port = config.port();
              Routes.register(javalinConfig.routes, services);
            });
  }

  /** Builds the gateway with the system clock. */
  public static App create(ServerConfig config) {
    return new App(config, Clock.systemUTC(), System::nanoTime);
  }

  /**
   * Builds the gateway with injected time, for tests.
   *
   * @param ticker monotonic nanoseconds used for leases and the replay TTL
   */
  public static App create(ServerConfig config, Clock clock, LongSupplier ticker) {
    return new App(config, clock, ticker);
  }

  private static SpeechEngine createEngine(ServerConfig config, OkHttpClient http) {
    return switch (config.engine()) {
      case "openai" ->
          OpenAiCompatibleEngine.create(
              new OpenAiConfig(
                  config.openAiBaseUrl(),
                  config.openAiApiKey(),
                  config.openAiModel(),
                  config.openAiDefaultLanguage()),
              http);
      case "gemini" -> {
        String key = config.geminiApiKey();
        if (key == null) {
          throw new IllegalArgumentException("BOLO_ENGINE=gemini needs BOLO_GEMINI_API_KEY");
        }
        yield GeminiEngines.create(
            GeminiConfig.of(key, http)
                .withBaseUrl(config.geminiBaseUrl())
                .withModel(config.geminiModel()));
      }
      // ServerConfig admits only offline, openai and gemini.
      default -> OfflineEngine.create(OfflineConfig.defaults());
    };
  }

  /** Starts listening; returns once the port is bound. */
  public App start() {
    javalin.start();
    for (Connector connector : javalin.jettyServer().server().getConnectors()) {
      if (connector instanceof ServerConnector server) {
        server.setIdleTimeout(IDLE_TIMEOUT.toMillis());
      }
    }
    log.info(
        "Bolo listening on http://{}:{} (engine {}, store {})",
        config.host(),
        port(),
        engine.name(),
        config.store());
    return this;
  }

  /** The bound port; useful when configured with port 0. */
  public int port() {
    return javalin.port();
  }

  /** The metrics registry, for tests and the load harness. */
  public PrometheusMeterRegistry metrics() {
    return metrics;
  }

  /** Stops accepting, lets running work finish briefly, releases everything. */
  @Override
  public void close() {
    javalin.stop();
    detached.shutdown();
    try {
      if (!detached.awaitTermination(5, TimeUnit.SECONDS)) {
        detached.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      detached.shutdownNow();
    }
    renewals.shutdownNow();
    readinessMonitor.close();
    engine.close();
    store.close();
    ledger.close();
    rateLimiter.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    metrics.close();
  }
}
