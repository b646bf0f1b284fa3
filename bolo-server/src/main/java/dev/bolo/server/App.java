package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.http.ClosingConnections;
import dev.bolo.server.http.HandlerThreads;
import dev.bolo.server.http.HeaderDeadline;
import dev.bolo.server.http.InFlightRequests;
import dev.bolo.server.http.RequestAdmission;
import dev.bolo.server.ledger.ChargeOutbox;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.RateLimiter;
import dev.bolo.server.ledger.RolledUp;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tls.PhoneAccess;
import dev.bolo.server.tracing.Tracing;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.transcription.ResumableUploads;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import okhttp3.OkHttpClient;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.ServerConnector;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway's lifecycle: {@link #start()}, {@link #drain(Duration)} on SIGTERM, {@link #close()}.
 * {@link AppBuilder}, the composition root, builds every part from a {@link ServerConfig}; nothing
 * else creates services. Tests build an App on port 0 with {@link #builder(ServerConfig)}. Not
 * thread safe but for {@link #drain} and {@link #close()}, which the stopping thread calls.
 */
public final class App implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(App.class);

  /**
   * How often usage older than {@code BOLO_USAGE_RETENTION} is rolled up (and once at start). It is
   * rolled up by whole UTC days, so an hour only decides how soon after midnight a day goes.
   */
  private static final Duration USAGE_ROLL_UP_INTERVAL = Duration.ofHours(1);

  /** How long shutdown waits for a running roll-up to finish its current transaction. */
  private static final Duration USAGE_ROLL_UP_STOP_WAIT = Duration.ofSeconds(5);

  /** How often expired resumable uploads are swept with their files. */
  private static final Duration UPLOAD_SWEEP_INTERVAL = Duration.ofMinutes(1);

  /**
   * How long {@link #close()} first lets the threads in a route leave it ({@link HandlerThreads}).
   */
  private static final Duration CLOSE_HANDLER_WAIT = Duration.ofSeconds(1);

  /** How long {@link #close()} lets detached work (engine calls) finish before interrupting it. */
  private static final Duration CLOSE_WORK_WAIT = Duration.ofSeconds(5);

  /**
   * How long {@link #close()} then lets the answers of that work finish: a request whose exchange
   * Jetty ended as it stopped still records its usage row before the ledger closes.
   */
  private static final Duration CLOSE_ANSWER_WAIT = Duration.ofSeconds(1);

  /** Charges owed for work already delivered get at most this of the drain's last part. */
  private static final Duration MAX_CHARGE_RESERVE = Duration.ofSeconds(5);

  /** How often a drain looks again at the requests waiting their turn and the running work. */
  private static final Duration DRAIN_POLL = Duration.ofMillis(20);

  /**
   * Bytes Jetty reads from a connection at once. Each connection with a request under way holds a
   * buffer of this size for the request's life, so it multiplies by the connections: 64 KiB saved a
   * fifth of the CPU per 200 KB note, but ten thousand phones waiting on a slow provider then held
   * 640 MB of buffers and the gateway stopped answering.
   */
  private static final int INPUT_BUFFER_BYTES = 16 * 1024;

  /**
   * Everything the composition root built, handed over to the lifecycle in one piece.
   *
   * @param ticker elapsed nanoseconds for the drain (and the leases and replay TTL it was built
   *     with)
   * @param wireTicker elapsed nanoseconds of what happens on the wire: the header deadline
   * @param sleeper the drain's pauses between its looks at what still runs
   */
  record Parts(
      ServerConfig config,
      LongSupplier ticker,
      LongSupplier wireTicker,
      Sleeper sleeper,
      InstanceSlot slot,
      GatewayThreads threads,
      PrometheusMeterRegistry metrics,
      AutoCloseable gcMetrics,
      OkHttpClient http,
      SpeechEngine engine,
      DedupStore store,
      RateLimiter rateLimiter,
      DurableLedger ledger,
      ChargeOutbox charges,
      ResumableUploads resumable,
      Jobs jobs,
      ReadinessMonitor readinessMonitor,
      Tracing tracing,
      InFlightRequests inFlight,
      RequestAdmission admission,
      PhoneAccess phones,
      Javalin javalin) {}

  private final Parts parts;
  private final ServerConfig config;
  private @Nullable HeaderDeadline headerDeadline;
  private @Nullable ClosingConnections closingConnections;

  App(Parts parts) {
    this.parts = parts;
    this.config = parts.config();
  }

  /** Builds the gateway with the system clock and ticker. */
  public static App create(ServerConfig config) {
    return builder(config).build();
  }

  /** A builder of the gateway, whose time and views tests may replace. */
  public static AppBuilder builder(ServerConfig config) {
    return new AppBuilder(config);
  }

  /** Starts listening; returns once the port is bound. */
  public App start() {
    Javalin javalin = parts.javalin();
    javalin.start();
    parts.jobs().start();
    parts
        .threads()
        .housekeeping()
        .scheduleWithFixedDelay(
            this::rollUpOldUsage, 0, USAGE_ROLL_UP_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    parts
        .threads()
        .housekeeping()
        .scheduleWithFixedDelay(
            this::sweepExpiredUploads,
            UPLOAD_SWEEP_INTERVAL.toMillis(),
            UPLOAD_SWEEP_INTERVAL.toMillis(),
            TimeUnit.MILLISECONDS);
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
            parts.wireTicker(),
            parts.threads().renewals());
    this.closingConnections =
        ClosingConnections.start(
            javalin.jettyServer().server(),
            config.limits().uploads().minBytesPerSecond(),
            config.limits().uploads().rateWindow(),
            parts.wireTicker(),
            parts.threads().renewals(),
            parts.metrics());
    log.info(
        "Bolo listening on {}://{}:{} (engine {}, store {}, instance slot {})",
        parts.phones().isSecure() ? "https" : "http",
        config.listen().host(),
        port(),
        parts.engine().name(),
        config.store().kind().name().toLowerCase(Locale.ROOT),
        parts.slot().index());
    parts.phones().advice(port()).forEach(line -> log.info("phones: {}", line));
    return this;
  }

  /** The bound port; useful when configured with port 0. */
  public int port() {
    return parts.javalin().port();
  }

  /**
   * Waits until the usage rows of every request answered so far are written: the ledger writes them
   * in batches, after the answer, so a report read on another connection may trail by one batch.
   */
  public void flushLedgerWrites() {
    parts.ledger().flushWrites();
  }

  /** The resumable uploads, for tests that play a request the HTTP layer cannot time. */
  public ResumableUploads resumableUploads() {
    return parts.resumable();
  }

  /** The jobs, for tests that move the clock past a retention or a webhook's next attempt. */
  public Jobs jobs() {
    return parts.jobs();
  }

  /** Where phones open the page and what they trust, for the start-up message and tests. */
  public PhoneAccess phones() {
    return parts.phones();
  }

  /** The metrics registry, for tests and the load harness. */
  public PrometheusMeterRegistry metrics() {
    return parts.metrics();
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
    DrainDeadline deadline = new DrainDeadline(parts.ticker(), parts.sleeper(), timeout);
    InFlightRequests inFlight = parts.inFlight();
    inFlight.close();
    // Jobs running here may end within the drain; no new one is taken (the next start takes them).
    parts.jobs().stopTaking();
    for (Connector connector : parts.javalin().jettyServer().server().getConnectors()) {
      if (connector instanceof NetworkConnector network) {
        network.close();
      }
    }
    int requests = inFlight.count();
    int work = parts.threads().running();
    log.info(
        "draining: {} requests and {} engine calls in flight; waiting up to {} s",
        requests,
        work,
        timeout.toSeconds());
    // Charges owed for work already delivered get the last part of the drain's time.
    Duration chargeReserve =
        Duration.ofNanos(Math.min(MAX_CHARGE_RESERVE.toNanos(), timeout.toNanos() / 6));
    boolean answered = awaitAnswered(deadline, chargeReserve);
    // The executor keeps running (lease renewals go through it) until close(); wait for the work.
    boolean finished = awaitNoRunningWork(deadline, chargeReserve);
    boolean charged = parts.charges().drain(deadline.remaining(Duration.ZERO));
    long tookMs = deadline.elapsed().toMillis();
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
          parts.threads().running(),
          parts.charges().pending());
    }
    return answered && finished && charged;
  }

  /**
   * Waits for the requests being served, and for those still waiting their turn: each of those is
   * let in as a running one finishes, and is answered 503 at once since the drain has begun.
   */
  private boolean awaitAnswered(DrainDeadline deadline, Duration reserve)
      throws InterruptedException {
    while (true) {
      Duration left = deadline.remaining(reserve);
      if (!parts.inFlight().awaitIdle(left)) {
        deadline.waited(left);
        return false;
      }
      if (parts.admission().waiting() == 0) {
        return true;
      }
      if (deadline.isPast(reserve)) {
        return false;
      }
      deadline.pause(DRAIN_POLL);
    }
  }

  private boolean awaitNoRunningWork(DrainDeadline deadline, Duration reserve)
      throws InterruptedException {
    while (parts.threads().running() > 0) {
      if (deadline.isPast(reserve)) {
        return false;
      }
      deadline.pause(DRAIN_POLL);
    }
    return true;
  }

  /**
   * Deletes expired resumable uploads and their bytes now ({@code BOLO_UPLOAD_TTL}); also runs
   * every minute. A failure waits for the next run.
   *
   * @return how many were deleted
   */
  public int sweepExpiredUploads() {
    try {
      return parts.resumable().sweep();
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
      RolledUp rolled = parts.ledger().rollUpUsage();
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
    parts.inFlight().close();
    if (headerDeadline != null) {
      headerDeadline.close();
    }
    if (closingConnections != null) {
      closingConnections.close();
    }
    try {
      HandlerThreads.stop(parts.javalin(), CLOSE_HANDLER_WAIT);
      parts.threads().finishDetachedWork(CLOSE_WORK_WAIT);
      parts.inFlight().awaitIdle(CLOSE_ANSWER_WAIT);
      parts.charges().drain(Duration.ofSeconds(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    parts.readinessMonitor().close();
    parts.jobs().close();
    if (!parts.threads().stopHousekeeping(USAGE_ROLL_UP_STOP_WAIT)) {
      log.warn("usage roll-up still running at shutdown; its open transaction is rolled back");
    }
    parts.threads().close();
    // The work has ended: its last spans go to the collector now.
    parts.tracing().close();
    parts.engine().close();
    parts.store().close();
    parts.ledger().close();
    parts.rateLimiter().close();
    parts.http().dispatcher().executorService().shutdown();
    parts.http().connectionPool().evictAll();
    try {
      parts.gcMetrics().close();
    } catch (Exception e) {
      log.debug("closing the GC metrics failed", e);
    }
    parts.metrics().close();
    parts.slot().close();
  }
}
