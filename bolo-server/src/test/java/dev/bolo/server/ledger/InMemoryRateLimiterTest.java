package dev.bolo.server.ledger;

import java.time.Duration;

/** The per-instance limiter, on a fake ticker. */
class InMemoryRateLimiterTest extends RateLimiterContract {

  @Override
  protected RateLimiter newLimiter(int perMinute) {
    return RateLimiter.perMinute(perMinute, ticker);
  }

  @Override
  protected void advance(Duration duration) {
    ticker.advance(duration);
  }
}
