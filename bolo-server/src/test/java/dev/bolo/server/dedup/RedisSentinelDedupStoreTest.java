package dev.bolo.server.dedup;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract through Redis Sentinel ({@code redis-sentinel://host:port#master}), as
 * operators run a replicated Redis: the gateway asks the sentinel for the master and talks to it.
 * The sentinel ({@link RedisSentinel}) is started by the test in front of an embedded master.
 */
class RedisSentinelDedupStoreTest extends RedisStoreContract {

  private static @Nullable EmbeddedRedis master;
  private static @Nullable RedisSentinel sentinel;

  @BeforeAll
  static void startMasterAndSentinel() {
    master = EmbeddedRedis.start();
    sentinel = RedisSentinel.watching(master.port());
  }

  @AfterAll
  static void stop() {
    if (sentinel != null) {
      sentinel.close();
    }
    if (master != null) {
      master.close();
    }
  }

  @Override
  String redisUrl() {
    if (sentinel == null) {
      throw new IllegalStateException("no sentinel");
    }
    return sentinel.url();
  }
}
