package dev.bolo.server.work;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a piece of work ended: a transcript, or a refusal that is given to everyone waiting on it.
 */
public sealed interface WorkResult {

  /** The work produced a transcript; it is kept for replay. */
  record Success(KeptTranscript transcript) implements WorkResult {
    public Success {
      Objects.requireNonNull(transcript, "transcript");
    }
  }

  /**
   * The work failed; nothing is kept, and the next copy runs afresh.
   *
   * @param retryAfter when known, how long before a resend is worth it
   */
  record Refused(Problem problem, String message, @Nullable Duration retryAfter)
      implements WorkResult {
    public Refused {
      Objects.requireNonNull(problem, "problem");
      Objects.requireNonNull(message, "message");
    }

    public Refused(Problem problem, String message) {
      this(problem, message, null);
    }
  }
}
