package dev.bolo.server;

import dev.bolo.server.audio.UploadReader;
import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.ProviderSockets;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.engine.gemini.GeminiEngines;
import dev.bolo.server.engine.offline.OfflineConfig;
import dev.bolo.server.engine.offline.OfflineEngine;
import dev.bolo.server.engine.openai.OpenAiCompatibleEngine;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.http.AdminRoutes;
import dev.bolo.server.http.ConnectionTimeouts;
import dev.bolo.server.http.HeaderDeadline;
import dev.bolo.server.http.InFlightRequests;
import dev.bolo.server.http.JsonErrorHandler;
import dev.bolo.server.http.RequestAdmission;
import dev.bolo.server.http.RequestMetrics;
import dev.bolo.server.http.Routes;
import dev.bolo.server.ledger.ChargeOutbox;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfigException;
import dev.bolo.server.ledger.RateLimiter;
import dev.bolo.server.ledger.RolledUp;
import dev.bolo.server.transcription.ResumableUploads;
import dev.bolo.server.transcription.Transcriber;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.ServerConnector;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds every part of the gateway from a {@link ServerConfig} and owns their
 * lifecycle. Nothing else creates services; tests create an App on port 0.
 */
public final class App implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(App.class);

  /**
   * A waiting request's idle timeout must outlast the longest transcription (the engine deadline's
   * cap plus the wait of a duplicate), or a phone waiting for its answer is cut off.
   */
  private static final Duration IDLE_TIMEOUT_MARGIN = Duration.ofMinutes(1);

  private static final Duration MIN_ANSWER_TIMEOUT = Duration.ofMinutes(4);

  /**
   * How often usage older than {@code BOLO_USAGE_RETENTION} is rolled up (and once at start). It is
   * rolled up by whole UTC days, so an hour only decides how soon after midnight a day goes.
   */
  private static final Duration USAGE_ROLL_UP_INTERVAL = Duration.ofHours(1);

  /** How long shutdown waits for a running roll-up to finish its current transaction. */
  private static final Duration USAGE_ROLL_UP_STOP_WAIT = Duration.ofSeconds(5);

  /**
   * Resumable uploads keep their bytes in this folder of the slot's spool, which a start does not
   * empty (it deletes only the spool's own files): they outlive a restart.
   */
  private static final String RESUMABLE_FOLDER = "resumable";

  /**
   * An append waits for an earlier one on the same upload this much longer than one body rate
   * window, after which a dead connection's read has failed and let go.
   */
  private static final Duration APPEND_LOCK_MARGIN = Duration.ofSeconds(2);

  /** How often expired resumable uploads are swept with their files. */
  private static final Duration UPLOAD_SWEEP_INTERVAL = Duration.ofMinutes(1);

  /** Charges kept while the ledger is unreachable; each is a few dozen bytes. */
  private static final int OUTBOX_CAPACITY = 100_000;

  /**
   * Idle provider connections kept for reuse: enough for the calls a busy instance runs at once.
   */
  private static final int PROVIDER_IDLE_CONNECTIONS = 2_048;

  /**
   * Bytes Jetty reads from a connection at once. Each connection with a request under way holds a
   * buffer of this size for the request's life, so it multiplies by the connections: 64 KiB saved a
   * fifth of the CPU per 200 KB note, but ten thousand phones waiting on a slow provider then held
   * 640 MB of buffers and the gateway stopped answering.
   */
  private static final int INPUT_BUFFER_BYTES = 16 * 1024;

  private final ServerConfig config;
  private final LongSupplier ticker;
  private final InstanceSlot slot;
  private final Javalin javalin;
  private final SpeechEngine engine;
  private final DedupStore store;
  private final DurableLedger ledger;
  private final ChargeOutbox charges;
  private final OkHttpClient http;
  private final ExecutorService detached;
  private final AtomicInteger runningWork = new AtomicInteger();
  private final ScheduledExecutorService renewals;
  private final ScheduledExecutorService ledgerRetries;
  private final ScheduledExecutorService usageRollUps;
  private final InFlightRequests inFlight = new InFlightRequests();
  private final RequestAdmission admission;
  private final PrometheusMeterRegistry metrics;
  private final AutoCloseable gcMetrics;
  private final RateLimiter rateLimiter;
  private final ReadinessMonitor readinessMonitor;
  private final ResumableUploads resumable;
  private @Nullable HeaderDeadline headerDeadline;

  private App(
      ServerConfig config,
      Clock clock,
      LongSupplier ticker,
      UnaryOperator<Ledger> ledgerView,
      UnaryOperator<SpeechEngine> engineView) {
    this.config = config;
    this.ticker = ticker;
    this.slot = InstanceSlot.acquire(config.ledger().dataDir(), config.spoolRoot());
    this.metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.gcMetrics = GatewayGauges.bindProcessMetrics(metrics);
    // Keep a connection per concurrent call alive between calls: OkHttp's default keeps 5, so under
    // load most provider calls would open a new connection and close it afterwards.
    OkHttpClient.Builder provider =
        new OkHttpClient.Builder()
            .connectTimeout(Duration.ofSeconds(10))
            .connectionPool(new ConnectionPool(PROVIDER_IDLE_CONNECTIONS, 5, TimeUnit.MINUTES));
    if (config.engine() == ServerConfig.EngineKind.OPENAI
        && ProviderSockets.helps(config.openAi().baseUrl())) {
      provider.socketFactory(new ProviderSockets());
    }
    this.http = provider.build();
    this.detached = Executors.newVirtualThreadPerTaskExecutor();
    this.renewals =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("bolo-lease-renewal").factory());
    this.ledgerRetries =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("bolo-ledger-retry").factory());
    this.usageRollUps =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("bolo-usage-rollup").factory());
    AnswerBudget answers = new AnswerBudget(config.limits().answerBudgetBytes(), AnswerBudget.WAIT);
    GatewayGauges.bindAnswers(metrics, answers);
    this.engine = createEngine(config, http, answers);
    ServerConfig.Store storeConfig = config.store();
    this.store =
        switch (storeConfig.kind()) {
          case REDIS ->
              DedupStore.redis(
                  Objects.requireNonNull(storeConfig.redisUrl()),
                  storeConfig.idempotencyTtl(),
                  storeConfig.dedupMaxBytes());
          case MEMORY ->
              DedupStore.inMemory(
                  ticker, storeConfig.idempotencyTtl(), storeConfig.dedupMaxBytes());
        };
    GatewayGauges.bindStore(metrics, store);
    int rateLimit = config.ledger().rateLimitPerMinute();
    this.rateLimiter =
        switch (storeConfig.kind()) {
          case REDIS ->
              RateLimiter.shared(
                  Objects.requireNonNull(storeConfig.redisUrl()), rateLimit, clock, ticker);
          case MEMORY -> RateLimiter.perMinute(rateLimit, ticker);
        };
    try {
      this.ledger =
          Ledger.jdbc(config.ledgerConfig(clock, ticker).withInstanceId(slot.id()), rateLimiter);
    } catch (LedgerConfigException e) {
      ledgerRetries.shutdownNow();
      usageRollUps.shutdownNow();
      slot.close();
      throw new ServerConfig.ConfigException(
          java.util.Objects.requireNonNullElse(
              e.getMessage(), "the ledger contradicts the configuration"));
    }
    Ledger served = ledgerView.apply(ledger);
    this.charges =
        new ChargeOutbox(served, ledgerRetries, ticker, OUTBOX_CAPACITY, slot.chargeJournal());
    charges.replay();
    GatewayGauges.bindWork(metrics, charges, runningWork, inFlight);
    Executor countedWork =
        task -> {
          runningWork.incrementAndGet();
          try {
            detached.execute(
                () -> {
                  try {
                    task.run();
                  } finally {
                    runningWork.decrementAndGet();
                  }
                });
          } catch (RuntimeException rejected) {
            runningWork.decrementAndGet();
            throw rejected;
          }
        };
    WorkCoordinator coordinator =
        new WorkCoordinator(store, countedWork, renewals, ticker, storeConfig.lease());
    GatewayGauges.bindCoordinator(metrics, coordinator);
    engine.bindMetrics(metrics);
    Transcriber transcriber =
        new Transcriber(
            engineView.apply(engine),
            coordinator,
            store,
            served,
            charges,
            config.deadlines().upstream(),
            config.allowedModels(),
            config.maxAudioMillis(),
            clock,
            metrics);
    ServerConfig.Limits limits = config.limits();
    ServerConfig.Listen listen = config.listen();
    UploadReader uploads =
        new UploadReader(
            limits.maxUploadBytes(),
            limits.inMemoryUploadBytes(),
            slot.spoolDir(),
            new UploadReader.Bounds(
                limits.maxConcurrentUploads(),
                limits.maxUploadsPerDevice(),
                limits.spoolMaxBytes(),
                listen.minBodyBytesPerSecond(),
                listen.bodyRateWindow(),
                limits.uploadBudgetBytes(),
                limits.uploadQueueWait()),
            System::nanoTime);
    GatewayGauges.bindUploads(metrics, uploads, limits.spoolMaxBytes());
    this.resumable =
        new ResumableUploads(
            ledger.uploads(),
            uploads,
            transcriber,
            slot.spoolDir().resolve(RESUMABLE_FOLDER),
            slot.id(),
            clock,
            limits.uploadTtl(),
            limits.maxUploadsPerDevice(),
            listen.bodyRateWindow().plus(APPEND_LOCK_MARGIN),
            countedWork);
    resumable.recover();
    Map<String, Supplier<Readiness>> readiness = new LinkedHashMap<>();
    readiness.put("engine", engine::readiness);
    readiness.put("spool", uploads::readiness);
    readiness.put("store", store::readiness);
    readiness.put("ledger", ledger::readiness);
    this.readinessMonitor = ReadinessMonitor.start(readiness);
    Map<String, Supplier<Readiness>> kept = new LinkedHashMap<>(readinessMonitor.kept());
    // Not a background check: a drain must show on /readyz at once.
    kept.put(
        "gateway",
        () -> inFlight.isClosed() ? Readiness.down("draining for shutdown") : Readiness.ok());
    Routes.Services services =
        new Routes.Services(
            served,
            uploads,
            transcriber,
            inFlight,
            kept,
            metrics,
            new ConnectionTimeouts(listen.idleTimeout(), listen.bodyRateWindow(), answerTimeout()),
            resumable);
    this.admission =
        new RequestAdmission(limits.maxActiveRequests(), limits.requestQueueWait(), metrics);
    this.javalin =
        Javalin.create(
            javalinConfig -> {
              javalinConfig.concurrency.useVirtualThreads = true;
              javalinConfig.startup.showJavalinBanner = false;
              javalinConfig.startup.showOldJavalinVersionWarning = false;
              // A known path asked with another method is 405 with Allow, not 404.
              javalinConfig.http.prefer405over404 = true;
              javalinConfig.jetty.host = config.listen().host();
              javalinConfig.jetty.port = config.listen().port();
              javalinConfig.jetty.modifyServer(
                  server -> {
                    server.setErrorHandler(new JsonErrorHandler());
                    // Outermost, so that every answer is counted, a turned-away upload too; then
                    // the upload line; Javalin nests its own inside the innermost wrapper.
                    RequestMetrics counted = new RequestMetrics(metrics);
                    counted.setHandler(admission);
                    server.setHandler(counted);
                  });
              // Jetty builds a header cache of about 17 KiB for every connection that sends a
              // second request; with thousands of phones connected that is tens of megabytes
              // for a saving of a few header objects per request.
              javalinConfig.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheSize(0));
              Routes.register(javalinConfig.routes, services);
              String adminToken = config.admin().token();
              if (adminToken != null) {
                AdminRoutes.register(
                    javalinConfig.routes,
                    new AdminRoutes.Services(adminToken, ledger, kept, metrics, clock));
              }
            });
  }

  /** Builds the gateway with the system clock. */
  public static App create(ServerConfig config) {
    return new App(
        config,
        Clock.systemUTC(),
        System::nanoTime,
        UnaryOperator.identity(),
        UnaryOperator.identity());
  }

  /**
   * Builds the gateway with injected time, for tests.
   *
   * @param ticker monotonic nanoseconds used for leases and the replay TTL
   */
  public static App create(ServerConfig config, Clock clock, LongSupplier ticker) {
    return new App(config, clock, ticker, UnaryOperator.identity(), UnaryOperator.identity());
  }

  /**
   * Builds the gateway with injected time and a view of its ledger, for tests that make the ledger
   * fail the way a database does.
   *
   * @param ledgerView wraps the ledger the requests use; readiness and shutdown see the real one
   */
  public static App create(
      ServerConfig config, Clock clock, LongSupplier ticker, UnaryOperator<Ledger> ledgerView) {
    return new App(config, clock, ticker, ledgerView, UnaryOperator.identity());
  }

  /**
   * Builds the gateway with injected time and a view of its engine, for tests that make the engine
   * fail the way a bug or a full heap does.
   *
   * @param engineView wraps the engine the requests use; readiness and shutdown see the real one
   */
  public static App createWithEngineView(
      ServerConfig config,
      Clock clock,
      LongSupplier ticker,
      UnaryOperator<SpeechEngine> engineView) {
    return new App(config, clock, ticker, UnaryOperator.identity(), engineView);
  }

  private static SpeechEngine createEngine(
      ServerConfig config, OkHttpClient shared, AnswerBudget answers) {
    OkHttpClient http = AnswerLimit.applyTo(shared, config.limits().maxTranscriptBytes(), answers);
    return switch (config.engine()) {
      case OPENAI -> {
        ServerConfig.OpenAi openAi = config.openAi();
        yield OpenAiCompatibleEngine.create(
            new OpenAiConfig(openAi.baseUrl(), openAi.apiKey(), openAi.model(), openAi.language()),
            http);
      }
      case GEMINI -> {
        ServerConfig.Gemini gemini = config.gemini();
        // ServerConfig refuses BOLO_ENGINE=gemini without a key.
        yield GeminiEngines.create(
            GeminiConfig.of(Objects.requireNonNull(gemini.apiKey()), http)
                .withBaseUrl(gemini.baseUrl())
                .withModel(gemini.model()));
      }
      case OFFLINE -> OfflineEngine.create(OfflineConfig.defaults());
    };
  }

  /**
   * How long a request waiting for its transcript keeps its connection: the engine deadline's cap
   * plus the wait of a duplicate.
   */
  private Duration answerTimeout() {
    Duration answer = config.deadlines().upstream().cap().plus(IDLE_TIMEOUT_MARGIN);
    return answer.compareTo(MIN_ANSWER_TIMEOUT) < 0 ? MIN_ANSWER_TIMEOUT : answer;
  }

  /** Starts listening; returns once the port is bound. */
  public App start() {
    javalin.start();
    usageRollUps.scheduleWithFixedDelay(
        this::rollUpOldUsage,
        0,
        USAGE_ROLL_UP_INTERVAL.toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS);
    usageRollUps.scheduleWithFixedDelay(
        this::sweepExpiredUploads,
        UPLOAD_SWEEP_INTERVAL.toMillis(),
        UPLOAD_SWEEP_INTERVAL.toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS);
    // Idle keep-alive connections go after BOLO_IDLE_TIMEOUT; a request raises its own
    // connection's timeout while it reads a body or waits for the engine (ConnectionTimeouts).
    for (Connector connector : javalin.jettyServer().server().getConnectors()) {
      if (connector instanceof ServerConnector server) {
        server.setIdleTimeout(config.listen().idleTimeout().toMillis());
        HttpConnectionFactory http = server.getConnectionFactory(HttpConnectionFactory.class);
        if (http != null) {
          http.setInputBufferSize(INPUT_BUFFER_BYTES);
        }
      }
    }
    this.headerDeadline =
        HeaderDeadline.start(
            javalin.jettyServer().server(),
            config.listen().headerTimeout(),
            System::nanoTime,
            renewals);
    log.info(
        "Bolo listening on http://{}:{} (engine {}, store {}, instance slot {})",
        config.listen().host(),
        port(),
        engine.name(),
        config.store().kind().name().toLowerCase(java.util.Locale.ROOT),
        slot.index());
    return this;
  }

  /** The bound port; useful when configured with port 0. */
  public int port() {
    return javalin.port();
  }

  /**
   * Waits until the usage rows of every request answered so far are written: the ledger writes them
   * in batches, after the answer, so a report read on another connection may trail by one batch.
   */
  public void flushLedgerWrites() {
    ledger.flushWrites();
  }

  /** The resumable uploads, for tests that play a request the HTTP layer cannot time. */
  public ResumableUploads resumableUploads() {
    return resumable;
  }

  /** The metrics registry, for tests and the load harness. */
  public PrometheusMeterRegistry metrics() {
    return metrics;
  }

  /**
   * Drains for shutdown: {@code /readyz} turns 503 at once, new connections are refused and new
   * requests answered 503, then running requests and the engine calls they started may finish
   * within {@code timeout}, and charges still waiting for the ledger are written. Call {@link
   * #close()} afterwards.
   *
   * @return true when everything finished in time
   */
  public boolean drain(Duration timeout) throws InterruptedException {
    long started = ticker.getAsLong();
    long deadline = started + timeout.toNanos();
    inFlight.close();
    for (Connector connector : javalin.jettyServer().server().getConnectors()) {
      if (connector instanceof NetworkConnector network) {
        network.close();
      }
    }
    int requests = inFlight.count();
    int work = runningWork.get();
    log.info(
        "draining: {} requests and {} engine calls in flight; waiting up to {} s",
        requests,
        work,
        timeout.toSeconds());
    // Charges owed for work already delivered get the last part of the drain's time.
    long chargeReserve = Math.min(MAX_CHARGE_RESERVE.toNanos(), timeout.toNanos() / 6);
    long workDeadline = deadline - chargeReserve;
    boolean answered = awaitAnswered(workDeadline);
    // The executor keeps running (lease renewals go through it) until close(); wait for the work.
    boolean finished = awaitNoRunningWork(workDeadline);
    boolean charged = charges.drain(Duration.ofNanos(Math.max(0, deadline - ticker.getAsLong())));
    long tookMs = (ticker.getAsLong() - started) / 1_000_000;
    if (answered && finished && charged) {
      log.info(
          "drained in {} ms: {} requests answered, {} engine calls finished",
          tookMs,
          requests,
          work);
    } else {
      log.warn(
          "drain timed out after {} ms: {} requests, {} engine calls and {} charges unfinished",
          tookMs,
          inFlight.count(),
          runningWork.get(),
          charges.pending());
    }
    return answered && finished && charged;
  }

  private static final Duration MAX_CHARGE_RESERVE = Duration.ofSeconds(5);

  /**
   * Waits for the requests being served, and for those still waiting their turn: each of those is
   * let in as a running one finishes, and is answered 503 at once since the drain has begun.
   */
  private boolean awaitAnswered(long deadline) throws InterruptedException {
    while (true) {
      if (!inFlight.awaitIdle(Duration.ofNanos(Math.max(0, deadline - ticker.getAsLong())))) {
        return false;
      }
      if (admission.waiting() == 0) {
        return true;
      }
      if (ticker.getAsLong() >= deadline) {
        return false;
      }
      Thread.sleep(20);
    }
  }

  private boolean awaitNoRunningWork(long deadline) throws InterruptedException {
    while (runningWork.get() > 0) {
      if (ticker.getAsLong() >= deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  /** Interrupts a running roll-up, which stops after its current transaction, and waits for it. */
  private void stopUsageRollUps() {
    usageRollUps.shutdownNow();
    try {
      if (!usageRollUps.awaitTermination(
          USAGE_ROLL_UP_STOP_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        log.warn("usage roll-up still running at shutdown; its open transaction is rolled back");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Deletes expired resumable uploads and their bytes now ({@code BOLO_UPLOAD_TTL}); also runs
   * every minute. A failure waits for the next run.
   *
   * @return how many were deleted
   */
  public int sweepExpiredUploads() {
    try {
      return resumable.sweep();
    } catch (RuntimeException e) {
      log.warn(
          "sweeping expired uploads failed, next try in {}: {}",
          UPLOAD_SWEEP_INTERVAL,
          e.toString());
      return 0;
    }
  }

  /** Runs on the roll-up thread; a failure waits for the next run (a thrown one would end them). */
  private void rollUpOldUsage() {
    try {
      RolledUp rolled = ledger.rollUpUsage();
      if (rolled.usageRows() > 0 || rolled.charges() > 0) {
        log.info(
            "rolled up {} usage rows and {} charges older than {} into daily totals ({} batches{})",
            rolled.usageRows(),
            rolled.charges(),
            config.ledger().usageRetention(),
            rolled.batches(),
            rolled.complete() ? "" : ", stopped for shutdown");
      }
    } catch (RuntimeException e) {
      log.warn("usage roll-up failed, next try in {}: {}", USAGE_ROLL_UP_INTERVAL, e.toString());
    }
  }

  /** Stops accepting, lets running work finish briefly, releases everything. */
  @Override
  public void close() {
    inFlight.close();
    if (headerDeadline != null) {
      headerDeadline.close();
    }
    javalin.stop();
    detached.shutdown();
    try {
      if (!detached.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS)) {
        detached.shutdownNow();
      }
      charges.drain(Duration.ofSeconds(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      detached.shutdownNow();
    }
    renewals.shutdownNow();
    readinessMonitor.close();
    ledgerRetries.shutdownNow();
    stopUsageRollUps();
    engine.close();
    store.close();
    ledger.close();
    rateLimiter.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    try {
      gcMetrics.close();
    } catch (Exception e) {
      log.debug("closing the GC metrics failed", e);
    }
    metrics.close();
    slot.close();
  }
}
