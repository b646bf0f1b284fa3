package dev.bolo.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a note waits for work the gateway reports running (202), set with {@link
 * BoloClient.Builder#runningWorkWait} and {@link BoloClient.Builder#stalledWorkTimeout}. Immutable.
 *
 * @param base the wait for a note of no length: 120 s by default, as the gateway's {@code
 *     BOLO_UPSTREAM_TIMEOUT}
 * @param max the longest wait for any note: 15 min by default, as {@code BOLO_UPSTREAM_TIMEOUT_MAX}
 * @param stalledAfter how long {@code seconds_done} may stay flat before the wait ends: 180 s by
 *     default, two of the offline engine's longest utterances (30 s) at a slow machine's three
 *     times real time, with room to spare
 */
record RunningWorkLimits(Duration base, Duration max, Duration stalledAfter) {

  static final RunningWorkLimits DEFAULTS =
      new RunningWorkLimits(Duration.ofSeconds(120), Duration.ofMinutes(15), Duration.ofMinutes(3));

  RunningWorkLimits {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(max, "max");
    Objects.requireNonNull(stalledAfter, "stalledAfter");
    if (base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("base must be positive: " + base);
    }
    if (max.compareTo(base) < 0) {
      throw new IllegalArgumentException("max must be >= base (" + base + "): " + max);
    }
    if (stalledAfter.isNegative() || stalledAfter.isZero()) {
      throw new IllegalArgumentException("stalledAfter must be positive: " + stalledAfter);
    }
  }

  /**
   * The total wait for {@code note}: base plus its length, at most max, as the gateway's deadline
   * for the note (PROTOCOL.md rule 7); max when the note's length is unknown, since it may be long.
   */
  Duration waitFor(VoiceNote note) {
    if (note.durationMs().isEmpty()) {
      return max;
    }
    Duration wait = base.plusMillis(note.durationMs().getAsLong());
    return wait.compareTo(max) > 0 ? max : wait;
  }
}
