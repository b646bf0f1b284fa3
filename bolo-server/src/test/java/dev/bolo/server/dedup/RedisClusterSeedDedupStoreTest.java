package dev.bolo.server.dedup;

import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on a three-master Redis Cluster given as one seed node, as managed clusters
 * hand it out: the gateway finds the cluster by asking that node and discovers the others, so no
 * key of another node's slots meets {@code MOVED}.
 */
class RedisClusterSeedDedupStoreTest extends RedisStoreContract {

  private static @Nullable EmbeddedRedisCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedRedisCluster.start(3);
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The first node alone. */
  private static String seed() {
    if (cluster == null) {
      throw new IllegalStateException("the cluster starts before every test");
    }
    return cluster.url().split(",")[0].strip();
  }

  @Override
  String redisUrl() {
    return seed();
  }
}
