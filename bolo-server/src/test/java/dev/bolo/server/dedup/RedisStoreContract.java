package dev.bolo.server.dedup;

import dev.bolo.server.redis.RedisEndpoint;
import java.time.Duration;

/**
 * The store contract on a real Redis, however it is reached (one server, a cluster, a sentinel, an
 * ACL user): the store is connected to {@link #redisUrl()}, and time is Redis's own, since Redis
 * expires entries by its clock while a test awaits the outcome.
 */
abstract class RedisStoreContract extends DedupStoreContract {

  /** {@code BOLO_REDIS_URL} of the Redis under test. */
  abstract String redisUrl();

  /** Where the store connects: {@link #redisUrl()}, and for TLS the CAs it trusts. */
  RedisEndpoint endpoint() {
    return RedisEndpoint.parse(redisUrl());
  }

  @Override
  protected DedupStore newStore(Duration ttl) {
    return RedisDedupStore.connect(
        RedisDedupStoreTest.options(endpoint(), ttl), System::nanoTime, () -> {});
  }

  @Override
  protected void letTimePass(Duration duration) {
    // Real time: Redis expires entries by its own clock while the test awaits the outcome.
  }

  @Override
  protected Duration shortLease() {
    // Short to keep the suite quick, long enough that a loaded machine does not outrun it.
    return Duration.ofSeconds(1);
  }

  @Override
  protected Duration shortTtl() {
    return Duration.ofSeconds(1);
  }
}
