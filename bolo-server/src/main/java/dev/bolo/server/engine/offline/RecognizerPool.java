package dev.bolo.server.engine.offline;

import dev.bolo.decode.Piece;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recognisers on a fixed pool of platform threads, one recogniser per thread: a piece submitted
 * here waits for a free one, is recognised and comes back timed against its note.
 *
 * <p>An {@link Error} or exception in a recogniser fails only the piece it was working on: the
 * recogniser, possibly stuck mid-search, is replaced by a fresh one. When even that fails (the heap
 * that broke the first may still be full) its place is held by one built on its next piece, and
 * {@link #unbuilt()} counts such places until they are built, so readiness can say so.
 *
 * <p>Thread safe.
 */
final class RecognizerPool implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RecognizerPool.class);

  /** How long {@link #close} waits for the pieces it stopped. */
  private static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(10);

  private final int size;
  private final ThreadPoolExecutor threads;
  private final BlockingQueue<NoteRecognizer> idle = new LinkedBlockingQueue<>();
  private final AtomicInteger unbuilt = new AtomicInteger();
  private volatile NoteRecognizer.@Nullable Factory factory;

  RecognizerPool(int size) {
    this.size = size;
    AtomicInteger next = new AtomicInteger();
    // Unbounded in type only: each note keeps at most `size` pieces here (NoteRun) and the engine
    // admits a bounded number of notes.
    this.threads =
        new ThreadPoolExecutor(
            size,
            size,
            0,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task ->
                Thread.ofPlatform()
                    .name("bolo-offline-" + next.incrementAndGet())
                    .daemon()
                    .unstarted(task));
  }

  /** Builds the recognisers from the loaded model; before this no piece may be submitted. */
  void fill(NoteRecognizer.Factory loaded) {
    for (int i = 0; i < size; i++) {
      idle.add(loaded.newRecognizer());
    }
    this.factory = loaded;
  }

  /** Recognisers, busy or not. */
  int size() {
    return size;
  }

  /** Recognisers working on a piece now. */
  int busy() {
    return threads.getActiveCount();
  }

  /** Pieces waiting for a recogniser. */
  int queued() {
    return threads.getQueue().size();
  }

  /** Places whose recogniser failed and could not be rebuilt yet. */
  int unbuilt() {
    return unbuilt.get();
  }

  /**
   * Recognises {@code piece} on the next free recogniser.
   *
   * @param stop polled while the piece is recognised; a piece whose note was abandoned before it
   *     started is not recognised at all
   * @return the piece's utterances, timed from the start of its note; a recogniser's exception or
   *     {@link Error} fails the future as a {@link RecognizerFailure}
   * @throws java.util.concurrent.RejectedExecutionException once the pool is closed
   */
  Future<List<Utterance>> submit(Piece piece, BooleanSupplier stop) {
    // A closing pool interrupts its threads: a piece then stops at its next poll, as it does when
    // its note is abandoned (a model's native call does not see an interrupt by itself).
    BooleanSupplier stopped = () -> stop.getAsBoolean() || Thread.currentThread().isInterrupted();
    return threads.submit(
        () -> {
          List<Utterance> heard = stopped.getAsBoolean() ? List.of() : recognize(piece, stopped);
          if (Thread.currentThread().isInterrupted()) {
            // Stopped by the close, not finished: never a transcript of what was heard so far.
            throw new InterruptedException("the offline engine is closing");
          }
          return heard;
        });
  }

  private List<Utterance> recognize(Piece piece, BooleanSupplier stop) throws InterruptedException {
    NoteRecognizer recognizer = idle.take();
    boolean healthy = false;
    try {
      List<Utterance> heard =
          recognizer.recognize(new NoteSamples(piece.samples()), stop).stream()
              .map(utterance -> utterance.shiftedBy(piece.startMillis()))
              .toList();
      healthy = true;
      return heard;
    } catch (RuntimeException | Error e) {
      throw new RecognizerFailure(e);
    } finally {
      idle.add(healthy ? recognizer : replace(recognizer));
    }
  }

  private NoteRecognizer replace(NoteRecognizer broken) {
    broken.close();
    try {
      return newRecognizer();
    } catch (RuntimeException | Error e) {
      log.error("cannot replace a failed offline recognizer now; retrying on its next piece", e);
      unbuilt.incrementAndGet();
      return new BuiltOnFirstPiece();
    }
  }

  /** The model's factory is not thread safe, and pool threads replace recognisers at any time. */
  private synchronized NoteRecognizer newRecognizer() {
    NoteRecognizer.Factory loaded = factory;
    if (loaded == null) {
      throw new IllegalStateException("the model is not loaded");
    }
    return loaded.newRecognizer();
  }

  @Override
  public void close() {
    threads.shutdownNow();
    try {
      // A piece stops within a token or a frame of its poll; past this bound it is left running.
      threads.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    NoteRecognizer recognizer;
    while ((recognizer = idle.poll()) != null) {
      recognizer.close();
    }
  }

  /**
   * Whether no piece runs any more: only then may the model the recognisers share be freed (a
   * session freed under a running call would crash the process). True once {@link #close} waited
   * for them all.
   */
  boolean terminated() {
    return threads.isTerminated();
  }

  /** A recogniser failed on a piece; the cause is the recogniser's own exception or error. */
  static final class RecognizerFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RecognizerFailure(Throwable cause) {
      super("the offline recognizer failed: " + cause, cause);
    }
  }

  /** Holds a recogniser's place until its next piece, when it builds the recogniser. */
  private final class BuiltOnFirstPiece implements NoteRecognizer {
    private @Nullable NoteRecognizer built;

    @Override
    public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
      if (built == null) {
        built = newRecognizer();
        unbuilt.decrementAndGet();
      }
      return built.recognize(samples, stop);
    }

    @Override
    public void close() {
      if (built != null) {
        built.close();
      } else {
        unbuilt.decrementAndGet();
      }
    }
  }
}
