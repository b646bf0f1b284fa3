package dev.bolo.server.testing;

import dev.bolo.server.ledger.LedgerTime;
import java.time.Clock;

/**
 * The machine's own time, for a ledger a test opens the way an operator command does (the gateway
 * reads it once, in its composition root, and hands it down).
 */
public final class SystemTime {

  private SystemTime() {}

  /** The system's UTC clock and {@link System#nanoTime} as the ledger's tickers. */
  public static LedgerTime ofLedger() {
    return new LedgerTime(Clock.systemUTC(), System::nanoTime, System::nanoTime);
  }
}
