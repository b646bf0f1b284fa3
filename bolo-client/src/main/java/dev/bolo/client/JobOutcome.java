package dev.bolo.client;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How one call about jobs ended ({@link BoloClient#submitJob}, {@link BoloClient#job}, {@link
 * BoloClient#jobs}, {@link BoloClient#cancelJob}): every expected ending is a value, as {@link
 * Outcome} is for a transcription.
 *
 * @param <T> what the gateway answers: a {@link Job} or a {@link JobList}
 */
public sealed interface JobOutcome<T> {

  /** How many requests were sent (0 when the call ended before the first). */
  int attempts();

  /** The answer, or null when the call did not get one. */
  default @Nullable T answerOrNull() {
    return this instanceof Answered<T> answered ? answered.answer() : null;
  }

  /**
   * The gateway answered.
   *
   * @param replayed true when a submission's {@code Idempotency-Key} named a job made before, and
   *     this is that job
   */
  record Answered<T>(T answer, boolean replayed, int attempts) implements JobOutcome<T> {
    public Answered {
      Objects.requireNonNull(answer, "answer");
    }
  }

  /**
   * The gateway refused for a reason a resend cannot fix, such as 400 {@code invalid_parameter} (a
   * webhook URL it may not call), 404 {@code not_found} (no such job of this device), or 429 after
   * the resends the policy allows; or answered something that is not a job ({@code
   * invalid_response}).
   */
  record Refused<T>(Failure.Http error, int attempts) implements JobOutcome<T> {
    public Refused {
      Objects.requireNonNull(error, "error");
    }
  }

  /** The failures were transient but outlasted the {@link ResendPolicy}, or no resend can fix. */
  record GaveUp<T>(Failure lastFailure, int attempts) implements JobOutcome<T> {
    public GaveUp {
      Objects.requireNonNull(lastFailure, "lastFailure");
    }
  }

  /**
   * The note's audio could not be read, or changed after it was hashed: nothing (or not all of it)
   * was sent.
   */
  record Unreadable<T>(String message, int attempts) implements JobOutcome<T> {
    public Unreadable {
      Objects.requireNonNull(message, "message");
    }
  }

  /** The waiting thread was interrupted: no request started after that. */
  record Cancelled<T>(int attempts) implements JobOutcome<T> {}
}
