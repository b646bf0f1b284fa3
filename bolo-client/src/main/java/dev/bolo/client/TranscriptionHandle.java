package dev.bolo.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A note being transcribed in the background. Thread-safe.
 *
 * <p>{@link #cancel()}, or {@code cancel} on {@link #outcome()}, is final: the note starts no
 * further attempt, a pause ends at once, the upload in flight is aborted, and the outcome becomes
 * {@link Outcome.Cancelled} unless it was already decided.
 */
public final class TranscriptionHandle {

  private final String noteKey;
  private final CancelFlag flag;
  private final OutcomeFuture outcome;

  TranscriptionHandle(String noteKey, CancelFlag flag, OutcomeFuture outcome) {
    this.noteKey = noteKey;
    this.flag = flag;
    this.outcome = outcome;
  }

  /** The note's {@code Idempotency-Key}, which names it in every listener event. */
  public String noteKey() {
    return noteKey;
  }

  /** Cancels the note; true if this call cancelled it, false if it was cancelled already. */
  public boolean cancel() {
    return flag.cancel();
  }

  /** Whether the note was cancelled. */
  public boolean isCancelled() {
    return flag.isCancelled();
  }

  /**
   * The outcome, completed when the note ends. Cancelling this future cancels the note (as awaiting
   * it from a coroutine that is cancelled does); futures derived from it with {@code thenApply} and
   * the like do not. Completes exceptionally only on a bug.
   */
  public CompletableFuture<Outcome> outcome() {
    return outcome;
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

  /** The note's future: cancelling it cancels the note. */
  static final class OutcomeFuture extends CompletableFuture<Outcome> {
    private final CancelFlag flag;

    OutcomeFuture(CancelFlag flag) {
      this.flag = flag;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      flag.cancel();
      return cancelled;
    }
  }
}
