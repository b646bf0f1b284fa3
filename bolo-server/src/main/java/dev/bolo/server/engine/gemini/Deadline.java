package dev.bolo.server.engine.gemini;

import java.time.Duration;
import java.util.function.LongSupplier;

/** One engine call's time budget, shared by every HTTP exchange the call makes. */
final class Deadline {

  private final LongSupplier ticker;
  private final long endNanos;

  private Deadline(LongSupplier ticker, long endNanos) {
    this.ticker = ticker;
    this.endNanos = endNanos;
  }

  static Deadline after(Duration timeout, LongSupplier ticker) {
    return new Deadline(ticker, ticker.getAsLong() + timeout.toNanos());
  }

  /** Time left; zero or negative once the budget is spent. */
  Duration remaining() {
    return Duration.ofNanos(endNanos - ticker.getAsLong());
  }
}
