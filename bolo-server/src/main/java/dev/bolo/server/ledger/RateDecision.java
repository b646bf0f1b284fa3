package dev.bolo.server.ledger;

import java.time.Duration;

/** The answer to {@link RateLimiter#admit}: may this device make a request now? */
public sealed interface RateDecision {

  static RateDecision allowed() {
    return Allowed.INSTANCE;
  }

  /** Go ahead; the request is counted. */
  enum Allowed implements RateDecision {
    INSTANCE
  }

  /**
   * Too many requests; nothing was counted.
   *
   * @param retryAfter how long until a request would be allowed, positive
   */
  record Limited(Duration retryAfter) implements RateDecision {

    public Limited {
      if (retryAfter.isNegative() || retryAfter.isZero()) {
        throw new IllegalArgumentException("retryAfter must be positive: " + retryAfter);
      }
    }

    /**
     * Whole seconds for a {@code Retry-After} header (RFC 9110 §10.2.3 allows only delay-seconds),
     * rounded up so a client that waits exactly this long is let in.
     */
    public long retryAfterSeconds() {
      long seconds = retryAfter.toSeconds();
      return retryAfter.equals(Duration.ofSeconds(seconds)) ? seconds : seconds + 1;
    }
  }
}
