package dev.bolo.client;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs the attempts of one note under a {@link ResendPolicy}, without a thread of its own: a {@link
 * Sender} makes each attempt and calls back, and a {@link Scheduler} starts the next one after the
 * pause. Knows nothing of HTTP. Thread-safe; one instance serves every note of a client.
 */
final class Resender {

  /** Makes one attempt and reports its result exactly once, on any thread. */
  @FunctionalInterface
  interface Sender {
    void send(Attempt attempt, Consumer<AttemptResult> done);
  }

  /** What one attempt produced. */
  sealed interface AttemptResult {}

  record Succeeded(Transcript transcript) implements AttemptResult {}

  record Failed(Failure failure) implements AttemptResult {}

  /** The audio could not be read; nothing (or not all of it) was sent. */
  record Unreadable(String message) implements AttemptResult {}

  /** The audio no longer matches the note's hash; nothing was sent. */
  record Changed(String hashedSha256, String currentSha256) implements AttemptResult {}

  /**
   * The gateway still works on the note, but the wait for it is over ({@link RunningWork}): the
   * note gives up without a resend, which would only wait again.
   */
  record StillRunning(Failure.Http failure) implements AttemptResult {}

  /** The attempt stopped because the note was cancelled; the flag says so. */
  record Stopped() implements AttemptResult {}

  private final LongSupplier ticker;
  private final Scheduler scheduler;
  private final Random random;

  Resender(LongSupplier ticker, Scheduler scheduler, Random random) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Starts sending the note and returns at once. The future completes with the outcome when the
   * note is transcribed, refused, given up, cancelled or its audio unusable; listeners hear {@link
   * TranscriptionListener#ended} before it completes.
   */
  CompletableFuture<Outcome> start(
      String noteKey,
      ResendPolicy policy,
      List<TranscriptionListener> listeners,
      CancelFlag flag,
      Sender sender,
      CompletableFuture<Outcome> outcome) {
    Run run = new Run(noteKey, policy, listeners, flag, sender, outcome);
    run.begin();
    return outcome;
  }

  /** Where one note's run stands. */
  private enum State {
    SENDING,
    PAUSED,
    ENDED
  }

  /** One note's life. Its state changes under its own lock; events are told outside it. */
  private final class Run {
    private final String noteKey;
    private final ResendPolicy policy;
    private final List<TranscriptionListener> listeners;
    private final CancelFlag flag;
    private final Sender sender;
    private final CompletableFuture<Outcome> outcome;
    private final long start;
    private State state = State.SENDING;
    private int attempts;
    private Scheduler.@Nullable Pending pause;

    Run(
        String noteKey,
        ResendPolicy policy,
        List<TranscriptionListener> listeners,
        CancelFlag flag,
        Sender sender,
        CompletableFuture<Outcome> outcome) {
      this.noteKey = noteKey;
      this.policy = policy;
      this.listeners = List.copyOf(listeners);
      this.flag = flag;
      this.sender = sender;
      this.outcome = outcome;
      this.start = ticker.getAsLong();
    }

    void begin() {
      flag.onCancel(this::cancelled);
      attempt(1);
    }

    private void attempt(int number) {
      Attempt attempt = startOrNull(number);
      if (attempt == null) {
        endIfRunning(new Outcome.Cancelled(number - 1));
        return;
      }
      tell(listener -> listener.attemptStarted(attempt));
      try {
        sender.send(attempt, result -> attemptEnded(attempt, result));
      } catch (RuntimeException bug) {
        // A sender must report through its callback; if it throws, say so rather than hang.
        outcome.completeExceptionally(bug);
      }
    }

    /** The attempt, now SENDING; null when the note was cancelled or has ended. */
    private synchronized @Nullable Attempt startOrNull(int number) {
      // A cancel is final: no attempt starts after it.
      if (state == State.ENDED || flag.isCancelled()) {
        return null;
      }
      state = State.SENDING;
      attempts = number;
      return new Attempt(noteKey, number, requestIdFor(number));
    }

    private void attemptEnded(Attempt attempt, AttemptResult result) {
      int number = attempt.number();
      synchronized (this) {
        if (state != State.SENDING || attempts != number) {
          return; // Already ended by a cancel, or a duplicate report.
        }
      }
      // A cancel is final, whatever the attempt said.
      if (flag.isCancelled()) {
        endIfRunning(new Outcome.Cancelled(number));
        return;
      }
      // Java 17: no pattern switch; the order does not matter, each result is one type.
      if (result instanceof Succeeded succeeded) {
        endIfRunning(new Outcome.Transcribed(succeeded.transcript(), number));
        return;
      }
      if (result instanceof Unreadable unreadable) {
        endIfRunning(new Outcome.Unreadable(unreadable.message(), number));
        return;
      }
      if (result instanceof StillRunning running) {
        endIfRunning(new Outcome.GaveUp(running.failure(), number));
        return;
      }
      if (result instanceof Changed changed) {
        endIfRunning(
            new Outcome.AudioChanged(changed.hashedSha256(), changed.currentSha256(), number));
        return;
      }
      if (!(result instanceof Failed failed)) {
        endIfRunning(
            new Outcome.Cancelled(number)); // Stopped: the sender saw the app cancel the call.
        return;
      }
      Failure failure = failed.failure();
      Duration wait = waitBeforeResend(number, failure);
      if (wait == null) {
        endIfRunning(endWithout(failure, number));
        return;
      }
      boolean cancelledMeanwhile;
      synchronized (this) {
        if (state != State.SENDING) {
          return;
        }
        state = State.PAUSED;
        // A cancel since the check above saw SENDING and left the ending to us.
        cancelledMeanwhile = flag.isCancelled();
      }
      if (cancelledMeanwhile) {
        endIfRunning(new Outcome.Cancelled(number));
        return;
      }
      Duration pauseFor = wait;
      tell(listener -> listener.resendScheduled(attempt, pauseFor, failure));
      Scheduler.Pending scheduled = scheduler.schedule(wait, () -> attempt(number + 1));
      synchronized (this) {
        // Still this pause (a scheduler may run the next attempt before returning, in tests).
        if (state == State.PAUSED && attempts == number) {
          pause = scheduled;
          return;
        }
      }
      // A cancel arrived while the pause was being scheduled and has ended the note already, or
      // the task has run: either way this pending task has nothing left to do.
      scheduled.cancel();
    }

    /** The flag was set: a pause ends now; a call in flight reports through its sender. */
    private void cancelled() {
      Scheduler.@Nullable Pending scheduled;
      synchronized (this) {
        if (state != State.PAUSED) {
          return;
        }
        scheduled = pause;
      }
      if (scheduled != null) {
        scheduled.cancel();
      }
      endIfRunning(new Outcome.Cancelled(attempts));
    }

    private @Nullable Duration waitBeforeResend(int failed, Failure failure) {
      return Resender.waitBeforeResend(
          policy, random, failed, failure, Duration.ofNanos(ticker.getAsLong() - start));
    }

    private Outcome endWithout(Failure failure, int attempts) {
      if (failure instanceof Failure.Http http && !policy.isTransient(http)) {
        return new Outcome.Refused(http, attempts);
      }
      return new Outcome.GaveUp(failure, attempts);
    }

    private void endIfRunning(Outcome ending) {
      synchronized (this) {
        if (state == State.ENDED) {
          return;
        }
        state = State.ENDED;
        pause = null;
      }
      tell(listener -> listener.ended(noteKey, ending));
      outcome.complete(ending);
    }

    private void tell(Consumer<TranscriptionListener> event) {
      Resender.tell(listeners, event);
    }
  }

  /**
   * The wait before resending after attempt {@code failed} failed with {@code failure}, {@code
   * elapsed} after the first began; null when no resend should happen. The one rule of every resend
   * of the SDK, a note's and a job call's alike.
   */
  static @Nullable Duration waitBeforeResend(
      ResendPolicy policy, Random random, int failed, Failure failure, Duration elapsed) {
    // Only failures a resend can fix are resent; the rest would fail the same way again.
    if (!policy.isTransient(failure)) {
      return null;
    }
    int next = failed + 1;
    if (next > policy.maxAttempts()) {
      return null;
    }
    Duration wait = policy.pauseBefore(next, random);
    Duration retryAfter = failure instanceof Failure.Http http ? http.retryAfter() : null;
    if (retryAfter != null && retryAfter.compareTo(wait) > 0) {
      wait = retryAfter;
    }
    // Give up now rather than sleep only to find the window closed.
    if (wait.compareTo(policy.window().minus(elapsed)) > 0) {
      return null;
    }
    return wait;
  }

  /** Tells every listener; a listener's bug is reported, never allowed to change the note. */
  static void tell(List<TranscriptionListener> listeners, Consumer<TranscriptionListener> event) {
    for (TranscriptionListener listener : listeners) {
      try {
        event.accept(listener);
      } catch (RuntimeException bug) {
        Thread thread = Thread.currentThread();
        thread.getUncaughtExceptionHandler().uncaughtException(thread, bug);
      }
    }
  }

  /** A fresh id per attempt that also says which attempt it was, so logs can be read alone. */
  private static String requestIdFor(int attempt) {
    return UUID.randomUUID() + "-a" + attempt;
  }
}
