package dev.bolo.server.transcription;

import dev.bolo.server.work.Problem;
import java.time.Duration;

/**
 * When a job whose run failed is taken again: only after a failure a later attempt may pass (the
 * provider or the gateway away or slow), after a pause that grows with each attempt, and at most
 * {@link #MAX_ATTEMPTS} times in all. Stateless.
 */
final class JobRetries {

  /**
   * How many times a job is taken before a failure a later attempt might not meet (the engine or
   * the gateway unavailable, a timeout) ends it failed; the pauses between grow by {@link
   * #RETRY_PAUSE} each.
   */
  static final int MAX_ATTEMPTS = 5;

  /** The pause before a job's second attempt; the third waits twice this, and so on. */
  static final Duration RETRY_PAUSE = Duration.ofSeconds(30);

  private JobRetries() {}

  /** The pause before the job is taken again after its {@code attempts}-th run failed. */
  static Duration pauseAfter(int attempts) {
    return RETRY_PAUSE.multipliedBy(Math.max(1, attempts));
  }

  /** Whether a later attempt of the same note may succeed where this one failed. */
  static boolean isTransient(Problem problem) {
    return switch (problem) {
      // The provider or the gateway were away or slow: their trouble, not the note's.
      case UPSTREAM_UNAVAILABLE, UPSTREAM_TIMEOUT, UPSTREAM_ERROR, SERVER_UNAVAILABLE, INTERNAL ->
          true;
      // The note, its settings or the device's quota: the same again would fail the same.
      case UPSTREAM_REJECTED,
          AUDIO_TOO_LONG,
          INVALID_AUDIO,
          UNSUPPORTED_AUDIO,
          QUOTA_EXHAUSTED,
          IDEMPOTENCY_KEY_REUSED,
          IDEMPOTENCY_CONFLICT ->
          false;
    };
  }
}
