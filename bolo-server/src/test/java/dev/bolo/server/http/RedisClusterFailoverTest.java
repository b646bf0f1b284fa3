package dev.bolo.server.http;

import dev.bolo.server.dedup.EmbeddedRedisCluster;
import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.Storm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three gateways on a Redis Cluster as managed services hand it out: three masters with a replica
 * each, given to the gateways as one seed node. Storms of duplicate notes run through it, and in
 * the middle of two of them a master fails over to its replica: once as an operator does it ({@code
 * CLUSTER FAILOVER}), once because the master is killed. Counts provider calls and charges.
 */
class RedisClusterFailoverTest {

  private static final Logger log = LoggerFactory.getLogger(RedisClusterFailoverTest.class);

  /** Longer than a killed master takes to be replaced (node timeout 2 s, then the election). */
  private static final Duration LEASE = Duration.ofSeconds(8);

  private static final int NOTES = 30;
  private static final int COPIES = 4;
  private static final int NOTE_MILLIS = 2000;
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @RegisterExtension
  final ClusterExtension cluster =
      new ClusterExtension(Map.of("BOLO_LEASE", LEASE.toMillis() + "ms"));

  private final List<Gateway> gateways = new ArrayList<>();
  private EmbeddedRedisCluster redis;
  private FakeProvider provider;
  private Storm storm;

  @BeforeEach
  void startThreeInstancesOnOneSeed() {
    provider = cluster.provider();
    provider.delay(Duration.ofMillis(500));
    // Closed after the instances, which the cluster closes first (last registered, first closed).
    redis = cluster.closeAfterTest(EmbeddedRedisCluster.startWithReplicas(3));
    for (String name : List.of("a", "b", "c")) {
      Map<String, String> env = cluster.environment(name);
      env.put("BOLO_REDIS_URL", redis.seedUrl());
      gateways.add(cluster.closeAfterTest(Gateway.withRealTime(env)));
    }
    storm = new Storm(gateways, provider, COPIES, PATIENCE);
  }

  @AfterEach
  void hangUp() {
    storm.close();
  }

  @Test
  void stormsThroughOneSeedNodeCostOneCallPerNoteThroughAGracefulAndAKilledFailOver()
      throws Exception {
    String quiet = aStormWith(Storm.notes(NOTES, NOTE_MILLIS, 100), "no fault", () -> {});
    String graceful =
        aStormWith(
            Storm.notes(NOTES, NOTE_MILLIS, 200),
            "CLUSTER FAILOVER of master 0",
            () -> redis.failOverGracefully(0));
    String killed =
        aStormWith(
            Storm.notes(NOTES, NOTE_MILLIS, 300), "master 1 killed", () -> redis.killMaster(1));
    // WARN: the test log level, so the figures show in every build.
    log.warn("redis cluster, one seed node:\n{}\n{}\n{}", quiet, graceful, killed);
  }

  private String aStormWith(List<byte[]> notes, String what, Storm.Fault fault) throws Exception {
    // Every claim was made a second or more before the fault, so the replica holds it.
    return storm.oneCallPerNoteThrough(
        notes, NOTE_MILLIS, what, fault, () -> cluster.chargedMillis("alpha"));
  }
}
