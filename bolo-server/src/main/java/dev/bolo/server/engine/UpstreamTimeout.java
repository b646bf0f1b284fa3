package dev.bolo.server.engine;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * How long an engine may take for a note: a base plus a share of the note's length, capped. A long
 * note legitimately takes longer; a cap keeps a stuck provider from holding a phone forever.
 *
 * @param base time for any note, 30 s by default
 * @param perAudioSecond extra time per second of audio, 0.5 s by default
 * @param cap the most any note gets, 120 s by default
 */
public record UpstreamTimeout(Duration base, Duration perAudioSecond, Duration cap) {

  /** 30 s + half the note's length, capped at 120 s: the same rule the client SDK uses. */
  public static final UpstreamTimeout DEFAULT =
      new UpstreamTimeout(Duration.ofSeconds(30), Duration.ofMillis(500), Duration.ofSeconds(120));

  public UpstreamTimeout {
    if (base.isNegative()
        || base.isZero()
        || cap.compareTo(base) < 0
        || perAudioSecond.isNegative()) {
      throw new IllegalArgumentException(
          "need 0 < base <= cap and perAudioSecond >= 0: "
              + base
              + ", "
              + perAudioSecond
              + ", "
              + cap);
    }
  }

  /** The timeout for a note of the given length, or {@link #base} when the length is unknown. */
  public Duration timeoutFor(OptionalLong durationMs) {
    if (durationMs.isEmpty() || durationMs.getAsLong() <= 0) {
      return base;
    }
    Duration extra = perAudioSecond.multipliedBy(durationMs.getAsLong()).dividedBy(1000);
    Duration total = base.plus(extra);
    return total.compareTo(cap) > 0 ? cap : total;
  }
}
