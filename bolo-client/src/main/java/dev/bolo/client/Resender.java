package dev.bolo.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs the attempts of one note under a {@link ResendPolicy}. Knows nothing of HTTP: a {@link
 * Sender} makes each attempt. Thread-safe; one instance serves every note of a client.
 */
final class Resender {

  /** Makes one attempt. */
  @FunctionalInterface
  interface Sender {
    AttemptResult send(Attempt attempt);
  }

  /** What one attempt produced. */
  sealed interface AttemptResult {}

  record Succeeded(Transcript transcript) implements AttemptResult {}

  record Failed(Failure failure) implements AttemptResult {}

  private final ResendPolicy policy;
  private final LongSupplier ticker;
  private final Sleeper sleeper;
  private final Random random;
  private final TranscriptionListener listener;

  Resender(
      ResendPolicy policy,
      LongSupplier ticker,
      Sleeper sleeper,
      Random random,
      TranscriptionListener listener) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.random = Objects.requireNonNull(random, "random");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Sends the note until it is transcribed, refused, given up or cancelled. An interrupt of the
   * calling thread cancels the note; the interrupt flag stays set for the caller.
   */
  Outcome run(String idempotencyKey, CancelFlag flag, Sender sender) {
    long start = ticker.getAsLong();
    for (int number = 1; ; number++) {
      // A cancel is final: no attempt starts after it, whatever the last one said.
      if (Thread.currentThread().isInterrupted()) {
        flag.cancel();
      }
      if (flag.isCancelled()) {
        return new Outcome.Cancelled(number - 1);
      }
      Attempt attempt = new Attempt(idempotencyKey, number, requestIdFor(number));
      listener.attemptStarted(attempt);
      AttemptResult result = sender.send(attempt);
      if (Thread.currentThread().isInterrupted()) {
        flag.cancel();
      }
      if (flag.isCancelled()) {
        return new Outcome.Cancelled(number);
      }
      if (result instanceof Succeeded succeeded) {
        listener.succeeded(attempt, succeeded.transcript());
        return new Outcome.Transcribed(succeeded.transcript(), number);
      }
      Failure failure = ((Failed) result).failure();
      Duration wait = waitBeforeResend(attempt, failure, start);
      if (wait == null) {
        listener.gaveUp(attempt, failure);
        return endWithout(failure, number);
      }
      listener.resendScheduled(attempt, wait, failure);
      try {
        sleeper.sleep(wait, flag.wakeUp());
      } catch (InterruptedException e) {
        // Whoever interrupted us wants this thread back: treat it as a cancel and keep the flag.
        Thread.currentThread().interrupt();
        flag.cancel();
      }
    }
  }

  /** The wait before resending after {@code failed}, or null when no resend should happen. */
  private @Nullable Duration waitBeforeResend(Attempt failed, Failure failure, long start) {
    // Only failures a resend can fix are resent; the rest would fail the same way again.
    if (!ResendPolicy.isTransient(failure)) {
      return null;
    }
    int next = failed.number() + 1;
    if (next > policy.maxAttempts()) {
      return null;
    }
    Duration wait = policy.pauseBefore(next, random);
    Duration retryAfter = failure instanceof Failure.Http http ? http.retryAfter() : null;
    if (retryAfter != null && retryAfter.compareTo(wait) > 0) {
      wait = retryAfter;
    }
    // Give up now rather than sleep only to find the window closed.
    Duration elapsed = Duration.ofNanos(ticker.getAsLong() - start);
    if (wait.compareTo(policy.window().minus(elapsed)) > 0) {
      return null;
    }
    return wait;
  }

  private static Outcome endWithout(Failure failure, int attempts) {
    if (failure instanceof Failure.Http http && !ResendPolicy.isTransient(http)) {
      return new Outcome.Refused(http, attempts);
    }
    return new Outcome.GaveUp(failure, attempts);
  }

  /** A fresh id per attempt that also says which attempt it was, so logs can be read alone. */
  private static String requestIdFor(int attempt) {
    return UUID.randomUUID() + "-a" + attempt;
  }
}
