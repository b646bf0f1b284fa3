package dev.bolo.server.dedup;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** The store contract on the in-memory store, with a fake ticker driving leases and TTLs. */
class InMemoryDedupStoreTest extends DedupStoreContract {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  protected DedupStore newStore(Duration ttl) {
    return DedupStore.inMemory(nanos::get, ttl, 1_000_000);
  }

  @Override
  protected void letTimePass(Duration duration) {
    nanos.addAndGet(duration.toNanos());
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
