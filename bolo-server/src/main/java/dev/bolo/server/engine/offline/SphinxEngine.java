package dev.bolo.server.engine.offline;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.health.Readiness;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offline engine: recognisers on a bounded pool of platform threads, one recogniser per thread,
 * loaded in the background. See {@link OfflineEngine} for the contract. Thread safe.
 */
final class SphinxEngine implements SpeechEngine {

  private static final Logger log = LoggerFactory.getLogger(SphinxEngine.class);

  /** The cause is in the log (see {@link #load}); a client is told no more than this. */
  private static final String LOAD_FAILED = "offline model failed to load; see the server log";

  private final OfflineConfig config;
  private final ThreadPoolExecutor pool;

  /**
   * One permit per recogniser and per queue slot, returned when a note's work ends (before its
   * caller sees the result), so that a caller's next note never finds its own finished work still
   * holding a place.
   */
  private final Semaphore admission;

  private final BlockingQueue<NoteRecognizer> idle = new LinkedBlockingQueue<>();
  private final CompletableFuture<NoteRecognizer.Factory> model = new CompletableFuture<>();

  SphinxEngine(OfflineConfig config, Supplier<NoteRecognizer.Factory> loader) {
    this.config = config;
    this.admission = new Semaphore(config.recognizers() + config.queueCapacity());
    // Unbounded in type only: admission lets at most queueCapacity notes wait here.
    this.pool =
        new ThreadPoolExecutor(
            config.recognizers(),
            config.recognizers(),
            0,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            threads("bolo-offline-"));
    Thread.ofPlatform().name("bolo-offline-loader").daemon().start(() -> load(loader));
  }

  private void load(Supplier<NoteRecognizer.Factory> loader) {
    long started = System.nanoTime();
    try {
      NoteRecognizer.Factory factory = loader.get();
      for (int i = 0; i < config.recognizers(); i++) {
        idle.add(factory.newRecognizer());
      }
      model.complete(factory);
      log.info(
          "offline model loaded: {} recognizers in {} ms",
          config.recognizers(),
          Duration.ofNanos(System.nanoTime() - started).toMillis());
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

  /** Notes waiting for a recogniser. */
  int queuedNotes() {
    return pool.getQueue().size();
  }

  @Override
  public void bindMetrics(MeterRegistry registry) {
    Gauge.builder("bolo_offline_pool_busy", pool, ThreadPoolExecutor::getActiveCount)
        .description("Offline recognisers transcribing a note now")
        .register(registry);
    Gauge.builder("bolo_offline_pool_queued", this, SphinxEngine::queuedNotes)
        .description("Notes waiting for an offline recogniser; beyond the queue's size, 503")
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

  @Override
  public Readiness readiness() {
    if (!model.isDone()) {
      return Readiness.down("offline model loading");
    }
    if (model.isCompletedExceptionally()) {
      return Readiness.down(LOAD_FAILED);
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
    AudioContainer container = request.audio().container();
    if (container != AudioContainer.WAV) {
      return new EngineResult.UnsupportedAudio(
          "the offline engine reads PCM WAV only; "
              + container.extension()
              + " audio needs the openai or gemini engine");
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
    // Opened here, not on the pool thread: the upload is only valid until this call returns, and an
    // open stream stays readable after that, so a note abandoned at its deadline can still read on
    // to its next frame, see the flag and stop.
    InputStream audio;
    try {
      audio = request.audio().open();
    } catch (IOException e) {
      admission.release();
      return unreadable(e);
    }
    long size = request.audio().size();
    AtomicBoolean abandoned = new AtomicBoolean();
    Future<EngineResult> outcome;
    try {
      outcome =
          pool.submit(
              () -> {
                try (audio) {
                  return run(audio, size, settings, abandoned);
                } finally {
                  admission.release();
                }
              });
    } catch (RejectedExecutionException e) {
      admission.release();
      closeQuietly(audio);
      return new EngineResult.Unavailable("offline engine is shut down", null);
    }
    return await(outcome, request.timeout(), abandoned);
  }

  private EngineResult await(
      Future<EngineResult> outcome, Duration timeout, AtomicBoolean abandoned) {
    try {
      return outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // Frees the recogniser within a frame: the audio stream ends as soon as it sees the flag.
      // Not cancelled: a cancelled queued task would never run and never return its permit.
      abandoned.set(true);
      return new EngineResult.TimedOut("offline engine took longer than " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      abandoned.set(true);
      return new EngineResult.Failed("interrupted while waiting for the offline engine");
    } catch (ExecutionException e) {
      // Only close() interrupts the pool's threads.
      if (e.getCause() instanceof InterruptedException) {
        return new EngineResult.Unavailable("offline engine is shut down", null);
      }
      // A bug or a full heap, not an answer about this note: the caller logs it and answers a
      // generic internal error, so no exception text reaches a client.
      throw new IllegalStateException("the offline recognizer failed", e.getCause());
    }
  }

  /** Runs on a pool thread: decodes, recognises and formats one note. */
  private EngineResult run(InputStream audio, long size, Settings settings, AtomicBoolean abandoned)
      throws InterruptedException {
    // Waited in the queue past the caller's deadline: nobody is listening any more.
    if (abandoned.get()) {
      return new EngineResult.TimedOut("abandoned while queued");
    }
    try {
      return switch (WavDecoder.open(audio, size)) {
        case WavDecoding.Malformed malformed ->
            new EngineResult.Rejected("malformed WAV: " + malformed.message());
        case WavDecoding.Decoded decoded -> {
          List<Utterance> utterances = recognize(decoded.samples(), abandoned);
          yield TranscriptFormats.format(
              utterances, decoded.durationMs(), settings.responseFormat(), settings);
        }
      };
    } catch (IOException e) {
      return unreadable(e);
    }
  }

  private List<Utterance> recognize(NoteSamples samples, AtomicBoolean abandoned)
      throws InterruptedException, IOException {
    NoteRecognizer recognizer = idle.take();
    boolean healthy = false;
    try {
      List<Utterance> utterances = recognizer.recognize(samples, abandoned::get);
      healthy = true;
      return utterances;
    } catch (IOException e) {
      // The upload failed, not the recogniser: it ended the note cleanly.
      healthy = true;
      throw e;
    } finally {
      idle.add(healthy ? recognizer : replace(recognizer));
    }
  }

  /** The upload's bytes could not be read back: logged here, the path kept from the client. */
  private static EngineResult unreadable(IOException e) {
    log.error("cannot read an uploaded note", e);
    return new EngineResult.Failed("cannot read the uploaded audio");
  }

  private static void closeQuietly(InputStream audio) {
    try {
      audio.close();
    } catch (IOException e) {
      log.warn("cannot close an uploaded note", e);
    }
  }

  /**
   * A recogniser that threw may be stuck mid-search; a fresh one takes its place. When even that
   * fails (the heap that broke the first may still be full), the place is held by one built on its
   * first note, so the engine never loses a recogniser for good.
   */
  private NoteRecognizer replace(NoteRecognizer broken) {
    broken.close();
    try {
      return newRecognizer();
    } catch (RuntimeException | Error e) {
      log.error("cannot replace a failed offline recognizer now; retrying on the next note", e);
      return new BuiltOnFirstNote();
    }
  }

  /** The model's factory is not thread safe, and pool threads replace recognisers at any time. */
  private synchronized NoteRecognizer newRecognizer() {
    return model.join().newRecognizer();
  }

  /** Holds a recogniser's place until its first note, when it builds the recogniser. */
  private final class BuiltOnFirstNote implements NoteRecognizer {
    private @Nullable NoteRecognizer built;

    @Override
    public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) throws IOException {
      if (built == null) {
        built = newRecognizer();
      }
      return built.recognize(samples, stop);
    }

    @Override
    public void close() {
      if (built != null) {
        built.close();
      }
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
  public void close() {
    pool.shutdownNow();
    NoteRecognizer recognizer;
    while ((recognizer = idle.poll()) != null) {
      recognizer.close();
    }
  }

  private static java.util.concurrent.ThreadFactory threads(String prefix) {
    AtomicInteger next = new AtomicInteger();
    return task ->
        Thread.ofPlatform().name(prefix + next.incrementAndGet()).daemon().unstarted(task);
  }
}
