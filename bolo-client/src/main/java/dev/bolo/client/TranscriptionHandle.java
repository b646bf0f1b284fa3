package dev.bolo.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A note being transcribed in the background. Thread-safe.
 *
 * <p>{@link #cancel()} is final: the note starts no further attempt, a pause ends at once, the
 * upload in flight is aborted, and the outcome becomes {@link Outcome.Cancelled} unless it was
 * already decided.
 */
public final class TranscriptionHandle {

  private final CancelFlag flag;
  private final CompletableFuture<Outcome> outcome;

  TranscriptionHandle(CancelFlag flag, CompletableFuture<Outcome> outcome) {
    this.flag = flag;
    this.outcome = outcome;
  }

  /** Cancels the note; true if this call cancelled it, false if it was cancelled already. */
  public boolean cancel() {
    return flag.cancel();
  }

  /** Whether {@link #cancel()} was called. */
  public boolean isCancelled() {
    return flag.isCancelled();
  }

  /**
   * The outcome, completed when the note ends. Completes exceptionally only on a bug (such as a
   * listener that throws). Completing or cancelling the returned future does not affect the note.
   */
  public CompletableFuture<Outcome> outcome() {
    return outcome.copy();
  }

  /**
   * Waits at most {@code timeout} for the outcome.
   *
   * @throws TimeoutException if the note has not ended in time
   * @throws InterruptedException if this thread is interrupted while waiting (the note continues)
   */
  public Outcome await(Duration timeout) throws TimeoutException, InterruptedException {
    try {
      return outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("transcription failed", cause);
    }
  }
}
