package dev.bolo.client;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * When a failed upload is sent again. {@link #standard()} is the policy every client uses unless
 * told otherwise:
 *
 * <ul>
 *   <li>at most 4 attempts, the first included;
 *   <li>pauses of 2 s, 5 s and 10 s before attempts 2, 3 and 4, each scaled by a random factor in
 *       [0.8, 1.2) so that a fleet that failed together does not come back together (bounded, not
 *       "full" jitter: a near-zero pause would defeat the purpose);
 *   <li>a {@code Retry-After} longer than the pause replaces it;
 *   <li>no new attempt once the time since the first attempt started plus the next wait would pass
 *       90 s: the policy gives up at once rather than sleeping only to fail.
 * </ul>
 *
 * <p>Only failures that a resend can fix are resent, see {@link #isTransient(Failure)}. The
 * gateway's de-duplication makes each resend safe: the same {@code Idempotency-Key} and audio are
 * transcribed and charged once.
 *
 * @param maxAttempts attempts including the first, at least 1
 * @param pauses the pause before attempt 2, 3, …; at least {@code maxAttempts - 1} of them
 * @param jitter the largest relative change to a pause, in [0, 1)
 * @param window the time from the first attempt's start after which no attempt starts
 */
public record ResendPolicy(int maxAttempts, List<Duration> pauses, double jitter, Duration window) {

  private static final ResendPolicy STANDARD =
      new ResendPolicy(
          4,
          List.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10)),
          0.2,
          Duration.ofSeconds(90));

  public ResendPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
    }
    pauses = List.copyOf(pauses);
    if (pauses.size() < maxAttempts - 1) {
      throw new IllegalArgumentException(
          "need a pause before each of " + (maxAttempts - 1) + " resends: " + pauses);
    }
    for (Duration pause : pauses) {
      if (pause.isNegative()) {
        throw new IllegalArgumentException("pauses must not be negative: " + pauses);
      }
    }
    if (!(jitter >= 0 && jitter < 1)) {
      throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
    }
    Objects.requireNonNull(window, "window");
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive: " + window);
    }
  }

  /** 4 attempts, pauses 2 s / 5 s / 10 s with ±20 % jitter, within 90 s. */
  public static ResendPolicy standard() {
    return STANDARD;
  }

  /** This policy with exact pauses, for callers (and tests) that need exact timing. */
  public ResendPolicy withoutJitter() {
    return new ResendPolicy(maxAttempts, pauses, 0, window);
  }

  /**
   * The jittered pause before {@code attempt} (2 for the first resend): the scheduled pause times a
   * factor drawn uniformly from [1 - jitter, 1 + jitter).
   */
  Duration pauseBefore(int attempt, Random random) {
    if (attempt < 2 || attempt > maxAttempts) {
      throw new IllegalArgumentException("attempt must be in [2, " + maxAttempts + "]: " + attempt);
    }
    Duration pause = pauses.get(attempt - 2);
    if (jitter == 0) {
      return pause;
    }
    double factor = 1 + jitter * (2 * random.nextDouble() - 1);
    return Duration.ofNanos(Math.round(pause.toNanos() * factor));
  }

  /**
   * Whether a resend of the same note may succeed where this attempt failed: connection failures,
   * unknown host, timeouts, HTTP 500, 502, 503, 504, Cloudflare's 520–524, and 429 when it says how
   * long to wait. Not 501 (the gateway will never implement the request), not other 4xx (the
   * request itself is wrong), not TLS or protocol errors.
   */
  public static boolean isTransient(Failure failure) {
    if (failure instanceof Failure.Network network) {
      Failure.NetworkKind kind = network.kind();
      return kind == Failure.NetworkKind.CONNECTION
          || kind == Failure.NetworkKind.UNKNOWN_HOST
          || kind == Failure.NetworkKind.TIMEOUT;
    }
    Failure.Http http = (Failure.Http) failure;
    int status = http.status();
    // RFC 9110 §15.5.30 (RFC 6585 §4): 429 means "slow down"; without Retry-After we cannot know
    // how long, and hammering a rate limiter only extends the ban.
    if (status == 429) {
      return http.retryAfter() != null;
    }
    return status == 500
        || status == 502
        || status == 503
        || status == 504
        || (status >= 520 && status <= 524);
  }
}
