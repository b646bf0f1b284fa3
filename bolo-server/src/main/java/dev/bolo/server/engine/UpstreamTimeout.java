package dev.bolo.server.engine;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A deadline that grows with a note's length: a base plus a share of the length, capped. A long
 * note legitimately takes longer; a cap keeps a stuck provider from holding a phone forever. The
 * gateway's engine deadline and the SDK's read timeout are both of this shape (PROTOCOL.md rule 7).
 *
 * @param base time for any note
 * @param perAudioSecond extra time per second of audio
 * @param cap the most any note gets
 */
public record UpstreamTimeout(Duration base, Duration perAudioSecond, Duration cap) {

  /**
   * The gateway's default engine deadline: 120 s + the note's length, capped at 15 min. It outlasts
   * the SDK's read timeout (30 s + half the note, at most 120 s) plus its pauses (17 s) for every
   * note length, so a resend after a client timeout joins the running work.
   */
  public static final UpstreamTimeout DEFAULT =
      new UpstreamTimeout(Duration.ofSeconds(120), Duration.ofSeconds(1), Duration.ofMinutes(15));

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
