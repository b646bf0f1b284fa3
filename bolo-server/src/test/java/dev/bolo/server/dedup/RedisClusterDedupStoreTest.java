package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import java.io.IOException;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a three-master Redis Cluster: every entry of a work key shares one slot
 * (hash tag), so the Lua scripts and the multi-key reads run there, and the end message reaches a
 * waiter subscribed through any node.
 */
class RedisClusterDedupStoreTest extends RedisStoreContract {

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

  private static String url() {
    if (cluster == null) {
      throw new IllegalStateException("the cluster starts before every test");
    }
    return cluster.url();
  }

  @Test
  void aWaiterOnOneInstanceWakesWhenAnotherInstanceCompletesInTheCluster() {
    DedupStore owner = store(LONG_TTL);
    DedupStore waiting = store(LONG_TTL);
    for (int i = 0; i < 20; i++) {
      // Many keys, so their slots fall on every master.
      WorkKey key = newKey();
      Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));
      assertThat(waiting.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
      Future<Resolution> waiter = threads.submit(() -> waiting.await(key, PATIENCE));
      KeptTranscript transcript = transcriptFor(key, "done elsewhere " + i);

      assertThat(owner.complete(key, claim, transcript)).isTrue();

      assertThat(waitFor(waiter)).isEqualTo(new Resolution.Completed(transcript));
    }
  }

  @Override
  String redisUrl() {
    return url();
  }
}
