package dev.bolo.server.engine.offline;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.Readiness;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import java.io.IOException;
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
      return Readiness.down("offline model failed to load: " + loadFailure());
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
      return new EngineResult.Failed("offline model failed to load: " + loadFailure());
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
    // Read here, not on the pool thread: the upload is only valid until this call returns.
    byte[] file;
    try {
      file = request.audio().readAllBytes();
    } catch (IOException e) {
      admission.release();
      return new EngineResult.Failed("cannot read the uploaded audio: " + e.getMessage());
    }
    AtomicBoolean abandoned = new AtomicBoolean();
    Future<EngineResult> outcome;
    try {
      outcome =
          pool.submit(
              () -> {
                try {
                  return run(file, settings, abandoned);
                } finally {
                  admission.release();
                }
              });
    } catch (RejectedExecutionException e) {
      admission.release();
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
      log.error("offline recognizer failed", e.getCause());
      return new EngineResult.Failed("offline recognizer failed: " + e.getCause());
    }
  }

  /** Runs on a pool thread: decodes, recognises and formats one note. */
  private EngineResult run(byte[] file, Settings settings, AtomicBoolean abandoned)
      throws InterruptedException {
    // Waited in the queue past the caller's deadline: nobody is listening any more.
    if (abandoned.get()) {
      return new EngineResult.TimedOut("abandoned while queued");
    }
    return switch (WavDecoder.decode(file)) {
      case WavDecoding.Malformed malformed ->
          new EngineResult.Rejected("malformed WAV: " + malformed.message());
      case WavDecoding.Decoded decoded -> {
        List<Utterance> utterances = recognize(decoded.samples(), abandoned);
        yield TranscriptFormats.format(
            utterances, decoded.durationMs(), settings.responseFormat(), settings);
      }
    };
  }

  private List<Utterance> recognize(short[] samples, AtomicBoolean abandoned)
      throws InterruptedException {
    NoteRecognizer recognizer = idle.take();
    boolean healthy = false;
    try {
      List<Utterance> utterances = recognizer.recognize(samples, abandoned::get);
      healthy = true;
      return utterances;
    } finally {
      idle.add(healthy ? recognizer : replace(recognizer));
    }
  }

  /** A recogniser that threw may be stuck mid-search; a fresh one takes its place. */
  private synchronized NoteRecognizer replace(NoteRecognizer broken) {
    broken.close();
    return model.join().newRecognizer();
  }

  private @Nullable String loadFailure() {
    try {
      model.join();
      return null;
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return cause.toString();
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
