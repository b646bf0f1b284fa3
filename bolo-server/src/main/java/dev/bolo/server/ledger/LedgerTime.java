package dev.bolo.server.ledger;

import java.time.Clock;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The time a ledger reads, handed in by whoever opens it (the gateway's composition root, an
 * operator command, a test): the ledger reads no clock of its own. Immutable.
 *
 * @param clock wall time for created, revoked and hold-expiry times and the usage roll-up's days
 * @param ticker elapsed nanoseconds for the rate limiter and the remembered devices
 * @param wireTicker elapsed nanoseconds that pass in real time whatever a test does with {@code
 *     ticker}: the linger of writes nobody waits for, which every request's usage row waits on
 */
public record LedgerTime(Clock clock, LongSupplier ticker, LongSupplier wireTicker) {

  public LedgerTime {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(wireTicker, "wireTicker");
  }
}
