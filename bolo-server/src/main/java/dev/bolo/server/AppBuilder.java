package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.http.ConnectionTimeouts;
import dev.bolo.server.http.InFlightRequests;
import dev.bolo.server.http.RequestAdmission;
import dev.bolo.server.http.Routes;
import dev.bolo.server.http.WrongTokens;
import dev.bolo.server.ledger.ChargeOutbox;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfigException;
import dev.bolo.server.ledger.LedgerTime;
import dev.bolo.server.ledger.RateLimiter;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tls.GatewayTls;
import dev.bolo.server.tls.PhoneAccess;
import dev.bolo.server.tracing.NoteSpans;
import dev.bolo.server.tracing.Tracing;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.transcription.NotePieces;
import dev.bolo.server.transcription.ResumableUploads;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.upload.TransferBuffers;
import dev.bolo.server.upload.UploadReader;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds every part of the gateway from a {@link ServerConfig}, each with its
 * own configuration record as the configuration holds it, and hands them to an {@link App}. A
 * failure part-way closes what was built already (the instance slot's lock, threads, the ledger's
 * connections) before it is thrown. Not thread safe; build once.
 */
public final class AppBuilder {

  private static final Logger log = LoggerFactory.getLogger(AppBuilder.class);

  /** Resumable uploads' folder in the slot's spool: a start leaves it, so they outlive restarts. */
  private static final String RESUMABLE_FOLDER = "resumable";

  /**
   * An append waits for an earlier one on the same upload this much longer than one body rate
   * window, after which a dead connection's read has failed and let go.
   */
  private static final Duration APPEND_LOCK_MARGIN = Duration.ofSeconds(2);

  /** Charges kept while the ledger is unreachable; each is a few dozen bytes. */
  private static final int OUTBOX_CAPACITY = 100_000;

  private final ServerConfig config;
  private Clock clock = Clock.systemUTC();
  private LongSupplier ticker = System::nanoTime;
  private LongSupplier wireTicker = System::nanoTime;
  private Sleeper sleeper = Thread::sleep;
  private UnaryOperator<Ledger> ledgerView = UnaryOperator.identity();
  private UnaryOperator<SpeechEngine> engineView = UnaryOperator.identity();
  private Jobs.@Nullable Webhooks webhooks;

  AppBuilder(ServerConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /** Wall time for the ledger's rows, quota holds and resumable uploads' expiry. */
  public AppBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * Elapsed nanoseconds for leases, the replay TTL, rate limits, charge retries, the drain, an
   * engine call's latency and the routes' deadlines and circuit breakers.
   */
  public AppBuilder ticker(LongSupplier ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return this;
  }

  /**
   * Elapsed nanoseconds for what passes in real time whatever a test does with {@link #ticker}:
   * what a peer does on the wire (the header deadline, an upload's body rate, a readiness check's
   * timeout, a wait for Redis), waits that park a thread (for answer room, for an upload's
   * transcription, the ledger's linger for company) and the durations logged and measured. The
   * system's unless a test replaces it.
   */
  public AppBuilder wireTicker(LongSupplier wireTicker) {
    this.wireTicker = Objects.requireNonNull(wireTicker, "wireTicker");
    return this;
  }

  /**
   * The pauses of the polls and retries that wait for time to pass: the drain's looks at what still
   * runs, the charges' retries at shutdown, a waiter's looks for a claim the store lost sight of,
   * Gemini's looks at an uploaded file. The thread's own sleep unless a test replaces it.
   */
  public AppBuilder sleeper(Sleeper sleeper) {
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return this;
  }

  /**
   * Wraps the ledger the requests use, for tests that make it fail the way a database does;
   * readiness and shutdown see the real one.
   */
  public AppBuilder ledgerView(UnaryOperator<Ledger> ledgerView) {
    this.ledgerView = Objects.requireNonNull(ledgerView, "ledgerView");
    return this;
  }

  /**
   * Wraps the engine the requests use, for tests that make it fail the way a bug or a full heap
   * does; readiness and shutdown see the real one.
   */
  public AppBuilder engineView(UnaryOperator<SpeechEngine> engineView) {
    this.engineView = Objects.requireNonNull(engineView, "engineView");
    return this;
  }

  /** The address policy, sender and signing secrets of jobs' webhooks, instead of the gateway's. */
  public AppBuilder webhooks(Jobs.Webhooks webhooks) {
    this.webhooks = Objects.requireNonNull(webhooks, "webhooks");
    return this;
  }

  /**
   * Builds the gateway; it listens once {@link App#start()} is called.
   *
   * @throws ServerConfig.ConfigException when the ledger contradicts the configuration (a static
   *     token for an enrolled device) or the data directory cannot be made or written
   */
  public App build() {
    Deque<AutoCloseable> built = new ArrayDeque<>();
    try {
      return build(built);
    } catch (LedgerConfigException e) {
      closeAll(built, e);
      throw new ServerConfig.ConfigException(
          Objects.requireNonNullElse(e.getMessage(), "the ledger contradicts the configuration"));
    } catch (RuntimeException | Error e) {
      closeAll(built, e);
      throw e;
    }
  }

  /** Closes what a failed build made, last first; their own failures ride on the cause. */
  private static void closeAll(Deque<AutoCloseable> built, Throwable cause) {
    while (!built.isEmpty()) {
      try {
        built.pop().close();
      } catch (Exception | Error e) {
        cause.addSuppressed(e);
      }
    }
  }

  private App build(Deque<AutoCloseable> built) {
    InstanceSlot slot;
    try {
      slot = InstanceSlot.acquire(config.ledger().dataDir(), config.spoolRoot());
    } catch (UncheckedIOException e) {
      throw DataDirectory.unusable(config.ledger().dataDir(), e);
    }
    built.push(slot);
    GatewayTls tls = HttpServer.tls(config, clock);
    PhoneAccess phones = PhoneAccess.of(config.listen().host(), tls);
    Tracing tracing = Tracing.configure(config.telemetry());
    built.push(tracing);
    PrometheusMeterRegistry metrics = tracing.metricsRegistry();
    built.push(metrics::close);
    AutoCloseable gcMetrics = GatewayGauges.bindProcessMetrics(metrics);
    built.push(gcMetrics);
    // The arrays notes pass through on their way in and out: this gateway's own.
    TransferBuffers transfers = new TransferBuffers();
    OkHttpClient http = Engines.providerClient(config, transfers, tracing);
    built.push(
        () -> {
          http.dispatcher().executorService().shutdown();
          http.connectionPool().evictAll();
        });
    GatewayThreads threads = new GatewayThreads();
    built.push(threads);
    AnswerBudget answers =
        new AnswerBudget(config.limits().answerBudgetBytes(), AnswerBudget.WAIT, wireTicker);
    GatewayGauges.bindAnswers(metrics, answers);
    SpeechEngine engine = createEngine(http, answers, tracing);
    built.push(engine);
    DedupStore store = createStore();
    built.push(store);
    GatewayGauges.bindStore(metrics, store);
    RateLimiter rateLimiter = createRateLimiter();
    built.push(rateLimiter);
    DurableLedger ledger =
        Ledger.jdbc(
            config.ledger().withInstanceId(slot.id()),
            new LedgerTime(clock, ticker, wireTicker),
            rateLimiter);
    built.push(ledger::close);
    Ledger served = ledgerView.apply(ledger);
    ChargeOutbox charges =
        new ChargeOutbox(
            served,
            threads.ledgerRetries(),
            ticker,
            sleeper,
            OUTBOX_CAPACITY,
            slot.chargeJournal());
    charges.replay();
    InFlightRequests inFlight = new InFlightRequests();
    GatewayGauges.bindWork(metrics, charges, threads.runningCounter(), inFlight);
    WorkCoordinator coordinator =
        new WorkCoordinator(
            store,
            // The work's spans are those of the request that started it.
            NoteSpans.carried(threads.countedWork(), tracing),
            threads.renewals(),
            ticker,
            sleeper,
            config.store().lease());
    GatewayGauges.bindCoordinator(metrics, coordinator);
    engine.bindMetrics(metrics);
    SpeechEngine working = engineView.apply(engine);
    Transcriber transcriber =
        new Transcriber(
            // A note longer than the engine takes goes in pieces, which wait as files of the
            // slot's spool (a start empties it); the engine itself is closed and metered above.
            new NotePieces(working, coordinator, config.pieces(), slot.spoolDir(), ticker, metrics),
            coordinator,
            ticker,
            store,
            served,
            charges,
            config.deadlines().upstream(),
            config.allowedModels(),
            config.modelAliases(),
            clock,
            metrics);
    ServerConfig.Limits limits = config.limits();
    UploadReader.Bounds bounds = limits.uploads();
    SpoolSizing sizing =
        SpoolSizing.fit(
            limits.maxUploadBytes(), bounds.spoolMaxBytes(), SpoolSizing.roomFor(slot.spoolDir()));
    sizing.log(slot.spoolDir());
    if (limits.formerDeviceLimitName()) {
      // Read for one release after its two meanings got a name each: say once what to set.
      log.warn(
          "BOLO_MAX_UPLOADS_PER_DEVICE is deprecated: it stands for BOLO_MAX_BODIES_PER_DEVICE"
              + " and BOLO_MAX_OPEN_UPLOADS_PER_DEVICE where they are unset (now {} and {});"
              + " set those instead",
          bounds.maxBodiesPerDevice(),
          limits.maxOpenUploadsPerDevice());
    }
    UploadReader reader =
        new UploadReader(
            sizing.maxPostBytes(),
            limits.inMemoryUploadBytes(),
            slot.spoolDir(),
            bounds.withSpoolMaxBytes(sizing.spoolMaxBytes()),
            wireTicker,
            transfers);
    GatewayGauges.bindUploads(metrics, reader, sizing.spoolMaxBytes());
    ResumableUploads resumable =
        new ResumableUploads(
            ledger.uploadRegistry(),
            reader,
            transcriber,
            slot.spoolDir().resolve(RESUMABLE_FOLDER),
            slot.id(),
            clock,
            wireTicker,
            limits.uploadTtl(),
            limits.maxOpenUploadsPerDevice(),
            limits.uploads().rateWindow().plus(APPEND_LOCK_MARGIN),
            threads.countedWork());
    resumable.recover();
    Jobs jobs =
        GatewayJobs.open(
            config, webhooks, ledger, transcriber, slot, clock, sleeper, metrics, tracing);
    built.push(jobs);
    Map<String, Supplier<Readiness>> readiness = new LinkedHashMap<>();
    readiness.put("engine", engine::readiness);
    readiness.put("spool", reader::readiness);
    readiness.put("store", store::readiness);
    readiness.put("ledger", ledger::readiness);
    readiness.put("webhooks", jobs::webhookReadiness);
    ReadinessMonitor readinessMonitor = ReadinessMonitor.start(readiness, wireTicker);
    built.push(readinessMonitor);
    Map<String, Supplier<Readiness>> kept = new LinkedHashMap<>(readinessMonitor.kept());
    // Not a background check: a drain must show on /readyz at once.
    kept.put(
        "gateway",
        () -> inFlight.isClosed() ? Readiness.down("draining for shutdown") : Readiness.ok());
    Routes.Services services =
        new Routes.Services(
            served,
            reader,
            transcriber,
            inFlight,
            kept,
            metrics,
            ConnectionTimeouts.of(
                config.listen().idleTimeout(),
                limits.uploads().rateWindow(),
                config.deadlines().upstream().cap()),
            resumable,
            phones,
            WrongTokens.perMinute(limits.wrongTokensPerMinute(), ticker),
            wireTicker,
            jobs);
    RequestAdmission admission =
        new RequestAdmission(limits.maxActiveRequests(), limits.requestQueueWait(), metrics);
    Javalin javalin =
        HttpServer.create(config, clock, services, admission, ledger, kept, metrics, tls, tracing);
    return new App(
        new App.Parts(
            config,
            ticker,
            wireTicker,
            sleeper,
            slot,
            threads,
            metrics,
            gcMetrics,
            http,
            engine,
            store,
            rateLimiter,
            ledger,
            charges,
            resumable,
            jobs,
            readinessMonitor,
            tracing,
            inFlight,
            admission,
            phones,
            javalin));
  }

  private SpeechEngine createEngine(OkHttpClient shared, AnswerBudget answers, Tracing tracing) {
    return Engines.create(
        config,
        AnswerLimit.applyTo(shared, config.limits().maxTranscriptBytes(), answers),
        clock,
        ticker,
        sleeper,
        tracing);
  }

  private DedupStore createStore() {
    ServerConfig.Store store = config.store();
    return switch (store.kind()) {
      case REDIS ->
          DedupStore.redis(
              store.redisEndpoint(),
              store.redisTimeout(),
              store.idempotencyTtl(),
              store.dedupMaxBytes(),
              ticker,
              wireTicker);
      case MEMORY -> DedupStore.inMemory(ticker, store.idempotencyTtl(), store.dedupMaxBytes());
    };
  }

  private RateLimiter createRateLimiter() {
    int perMinute = config.ledger().requestsPerMinute();
    ServerConfig.Store store = config.store();
    return switch (store.kind()) {
      case REDIS -> RateLimiter.shared(store.redisEndpoint(), perMinute, clock, ticker);
      case MEMORY -> RateLimiter.perMinute(perMinute, ticker);
    };
  }
}
