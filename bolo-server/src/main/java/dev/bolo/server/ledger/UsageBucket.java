package dev.bolo.server.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * Usage in one interval of a {@link UsageSeriesQuery}, counted as {@link DeviceUsage} counts it.
 *
 * @param start the interval's start
 * @param requests answered transcription requests
 * @param uniqueNotes distinct pieces of work answered with a transcript in this interval (a note
 *     answered in two intervals counts in both)
 * @param joinedReplays requests answered by work that was in flight when they arrived
 * @param cachedReplays requests answered from a stored result
 * @param chargedMillis audio charged in this interval
 * @param savedMillis audio of successful replays, not charged
 */
public record UsageBucket(
    Instant start,
    long requests,
    long uniqueNotes,
    long joinedReplays,
    long cachedReplays,
    long chargedMillis,
    long savedMillis) {

  public UsageBucket {
    Objects.requireNonNull(start, "start");
  }

  /** No usage at {@code start}. */
  public static UsageBucket empty(Instant start) {
    return new UsageBucket(start, 0, 0, 0, 0, 0, 0);
  }

  public long replays() {
    return joinedReplays + cachedReplays;
  }

  /** Replays per request, 0 when there were no requests. */
  public double redundancyRate() {
    return requests == 0 ? 0 : (double) replays() / requests;
  }

  /** Both intervals' counts together, at this one's start. */
  UsageBucket plus(UsageBucket other) {
    return new UsageBucket(
        start,
        requests + other.requests,
        uniqueNotes + other.uniqueNotes,
        joinedReplays + other.joinedReplays,
        cachedReplays + other.cachedReplays,
        chargedMillis + other.chargedMillis,
        savedMillis + other.savedMillis);
  }
}
