package dev.bolo.server.dedup;

import dev.bolo.testkit.FakeTicker;
import java.time.Duration;

/** The store contract on the in-memory store, with a fake ticker driving leases and TTLs. */
class InMemoryDedupStoreTest extends DedupStoreContract {

  private final FakeTicker ticker = FakeTicker.atOneSecond();

  @Override
  protected DedupStore newStore(Duration ttl) {
    return DedupStore.inMemory(ticker, ttl, 1_000_000);
  }

  @Override
  protected void letTimePass(Duration duration) {
    ticker.advance(duration);
  }

  @Override
  protected Duration shortLease() {
    return Duration.ofSeconds(5);
  }

  @Override
  protected Duration shortTtl() {
    return Duration.ofMinutes(1);
  }
}
