package dev.bolo.server.engine.offline;

import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.LongestNote;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.upload.SeekableNote;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offline engine: a note is decoded and cut at its pauses on the caller's thread ({@link
 * NoteRun}) and its pieces recognised on a {@link RecognizerPool} whose model loads in the
 * background. See {@link OfflineEngine} for the contract. Thread safe.
 */
final class LocalEngine implements SpeechEngine {

  private static final Logger log = LoggerFactory.getLogger(LocalEngine.class);

  /** How long a close waits for a load in progress: loading takes seconds, on a busy machine 20. */
  private static final Duration LOAD_AT_CLOSE = Duration.ofMinutes(1);

  /** The cause is in the log (see {@link #load}); a client is told no more than this. */
  private static final String LOAD_FAILED = "offline model failed to load; see the server log";

  private final OfflineConfig config;
  private final RecognizerPool pool;
  private final LongSupplier ticker;

  /**
   * One permit per note being transcribed: as many as there are recognisers plus the queue, so that
   * a note beyond them is answered busy at once instead of waiting without bound.
   */
  private final Semaphore admission;

  private final CompletableFuture<NoteRecognizer.Factory> model = new CompletableFuture<>();

  LocalEngine(OfflineConfig config, Supplier<NoteRecognizer.Factory> loader, LongSupplier ticker) {
    this.config = config;
    this.ticker = ticker;
    this.admission = new Semaphore(config.recognizers() + config.queueCapacity());
    this.pool = new RecognizerPool(config.recognizers());
    Thread.ofPlatform().name("bolo-offline-loader").daemon().start(() -> load(loader));
  }

  private void load(Supplier<NoteRecognizer.Factory> loader) {
    long started = ticker.getAsLong();
    try {
      NoteRecognizer.Factory factory = loader.get();
      pool.fill(factory);
      model.complete(factory);
      log.info(
          "offline model loaded: {} recognizers in {} ms",
          config.recognizers(),
          Duration.ofNanos(ticker.getAsLong() - started).toMillis());
    } catch (RuntimeException | Error e) {
      log.error("offline model failed to load", e);
      model.completeExceptionally(e);
    }
  }

  /** Waits until the model has loaded or failed; true when it loaded within the timeout. */
  boolean awaitLoaded(Duration timeout) throws InterruptedException {
    try {
      model.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  private void awaitLoadEnded() {
    try {
      model.get(LOAD_AT_CLOSE.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      // Logged by the loader; nothing to free.
    } catch (TimeoutException e) {
      log.warn("the offline model was still loading {} after close; not waited for", LOAD_AT_CLOSE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Pieces of notes waiting for a recogniser. */
  int queuedPieces() {
    return pool.queued();
  }

  @Override
  public void bindMetrics(MeterRegistry registry) {
    Gauge.builder("bolo_offline_pool_busy", pool, RecognizerPool::busy)
        .description("Offline recognisers recognising a piece of a note now")
        .register(registry);
    Gauge.builder("bolo_offline_pool_queued", pool, RecognizerPool::queued)
        .description("Pieces of notes waiting for an offline recogniser")
        .register(registry);
    Gauge.builder("bolo_offline_pool_size", config, OfflineConfig::recognizers)
        .description("Offline recognisers loaded (the pool's size)")
        .register(registry);
    Gauge.builder("bolo_offline_queue_capacity", config, OfflineConfig::queueCapacity)
        .description("Notes that may wait for an offline recogniser before the engine says busy")
        .register(registry);
  }

  @Override
  public String name() {
    return OfflineEngine.NAME;
  }

  @Override
  public String defaultModel() {
    return OfflineEngine.MODEL;
  }

  /** Every utterance is timed: every format is rendered from {@code verbose_json}. */
  @Override
  public ResponseFormat richestFormat(String model) {
    return ResponseFormat.VERBOSE_JSON;
  }

  @Override
  public List<String> languages() {
    return OfflineEngine.LANGUAGES;
  }

  /** A note beyond it would outlast its deadline while it held a recogniser. */
  @Override
  public LongestNote longestNote(String model) {
    return new LongestNote(config.longestNoteSeconds(), name(), "BOLO_OFFLINE_MAX_SECONDS");
  }

  @Override
  public Readiness readiness() {
    if (!model.isDone()) {
      return Readiness.down("offline model loading");
    }
    if (model.isCompletedExceptionally()) {
      return Readiness.down(LOAD_FAILED);
    }
    int unbuilt = pool.unbuilt();
    if (unbuilt >= pool.size()) {
      return Readiness.down("no offline recognizer could be rebuilt after a failure");
    }
    if (unbuilt > 0) {
      return Readiness.degraded(
          unbuilt + " of " + pool.size() + " offline recognizers could not be rebuilt yet");
    }
    return Readiness.ok();
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    Settings settings = request.settings();
    if (!isEnglish(settings.language())) {
      return new EngineResult.Rejected(
          "offline engine speaks English only; language was " + settings.language());
    }
    // Not loaded yet: a resend after the load succeeds, so this is "busy", not "failed".
    if (!model.isDone()) {
      return new EngineResult.Unavailable("offline model is still loading", config.retryAfter());
    }
    if (model.isCompletedExceptionally()) {
      return new EngineResult.Failed(LOAD_FAILED);
    }
    // Every recogniser busy and the queue full: waiting longer would only grow the backlog.
    if (!admission.tryAcquire()) {
      return new EngineResult.Unavailable(
          "offline engine busy: "
              + config.recognizers()
              + " recognizers working and "
              + config.queueCapacity()
              + " notes queued",
          config.retryAfter());
    }
    try (SeekableNote note = request.audio().openSeekable()) {
      return new NoteRun(pool, request.timeout(), request.deltas(), request.progress(), ticker)
          .transcribe(note);
    } catch (IOException e) {
      log.error("cannot read an uploaded note", e);
      return new EngineResult.Failed("cannot read the uploaded audio");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new EngineResult.Failed("interrupted while waiting for the offline engine");
    } finally {
      admission.release();
    }
  }

  /** Empty (not given) or English, with or without a region ({@code en}, {@code en-gb}). */
  private static boolean isEnglish(String language) {
    return language.isEmpty()
        || language.equals("en")
        || language.startsWith("en-")
        || language.startsWith("en_");
  }

  @Override
  public String source(String model) {
    return OfflineEngine.SOURCE;
  }

  /** Utterances are timed as a whole: Moonshine gives no word times. */
  @Override
  public boolean timesWords(String model) {
    return false;
  }

  @Override
  public void close() {
    // A gateway stopped while its model loads waits for the load: a process that exits under ONNX
    // Runtime's session creation can crash in it, and a model loaded after close would not be
    // freed. No piece runs before the model has loaded.
    awaitLoadEnded();
    pool.close();
    if (!pool.terminated()) {
      // Freeing the sessions under a running call would crash the process; leave them to it.
      log.warn("offline recognizers still running at close; the model is left loaded");
      return;
    }
    if (model.isDone() && !model.isCompletedExceptionally()) {
      try {
        model.join().close();
      } catch (Exception e) {
        log.warn("the offline model did not close cleanly", e);
      }
    }
  }
}
