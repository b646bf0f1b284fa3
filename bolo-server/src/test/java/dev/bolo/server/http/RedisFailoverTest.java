package dev.bolo.server.http;

import dev.bolo.server.dedup.EmbeddedRedis;
import dev.bolo.server.dedup.EmbeddedRedisCluster;
import dev.bolo.server.dedup.RedisSentinel;
import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.Storm;
import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three gateways on a replicated Redis as operators run it, storms of duplicate notes through it,
 * and a master failed over to its replica in the middle of a storm. A Redis Cluster as managed
 * services hand it out (three masters with a replica each, given as one seed node), failed over
 * once as an operator does it ({@code CLUSTER FAILOVER}) and once because a master is killed; and
 * Redis behind Sentinel ({@code redis-sentinel://host:port#bolo}: a master, its replica, a sentinel
 * that counts the master down after 2 s), its master killed. Counts provider calls and charges.
 */
class RedisFailoverTest {

  private static final Logger log = LoggerFactory.getLogger(RedisFailoverTest.class);

  /**
   * Long enough that claims outlive a killed master. An owner renews every third of the lease, so a
   * claim has at least two thirds of it left when the master dies. The owner's renewals reach Redis
   * again once the replica is master (2 s to count the old one down, then the election: 3–5 s here)
   * and the commands queued for the dead master have timed out ({@link #REDIS_TIMEOUT}). That is up
   * to 10 s, so two thirds of the lease must be more: with 8 s a claim expired during a slow
   * fail-over and its note ran twice (31 calls for 30 notes, once in CI).
   */
  private static final Duration LEASE = Duration.ofSeconds(20);

  private static final int NOTES = 30;
  private static final int COPIES = 4;
  private static final int NOTE_MILLIS = 2000;
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /**
   * What the storms count is one call per note while the store answers. A busy two-core machine
   * (three gateways, six Redis servers and the test on it) can stall a command past the default 1
   * s, and an instance that times out rightly serves without the store (its note then costs a
   * second call, which {@code RedisChaosTest} covers); the storms give Redis longer, as an operator
   * of a busy machine would. Commands queued for a killed master wait this long too, until the
   * client has moved to its replica.
   */
  private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(5);

  @RegisterExtension
  final ClusterExtension cluster =
      new ClusterExtension(
          Map.of(
              "BOLO_LEASE", LEASE.toMillis() + "ms",
              "BOLO_REDIS_TIMEOUT", REDIS_TIMEOUT.toMillis() + "ms"));

  private FakeProvider provider;
  private @Nullable Storm storm;

  @BeforeEach
  void slowProvider() {
    provider = cluster.provider();
    provider.delay(Duration.ofMillis(500));
  }

  @AfterEach
  void hangUp() {
    if (storm != null) {
      storm.close();
    }
  }

  @Test
  void clusterStormsThroughOneSeedCostOneCallPerNoteThroughAGracefulAndAKilledFailOver()
      throws Exception {
    // Closed after the instances, which the cluster closes first (last registered, first closed).
    EmbeddedRedisCluster redis = cluster.closeAfterTest(EmbeddedRedisCluster.startWithReplicas(3));
    threeGatewaysOn(redis.seedUrl());

    String quiet = aStormWith(100, "no fault", () -> {});
    String graceful =
        aStormWith(200, "CLUSTER FAILOVER of master 0", () -> redis.failOverGracefully(0));
    String killed = aStormWith(300, "master 1 killed", () -> redis.killMaster(1));
    // WARN: the test log level, so the figures show in every build.
    log.warn("redis cluster, one seed node:\n{}\n{}\n{}", quiet, graceful, killed);
  }

  @Test
  void aStormThroughSentinelCostsOneCallPerNoteThroughAKilledMastersFailOver() throws Exception {
    EmbeddedRedis master = cluster.closeAfterTest(EmbeddedRedis.start());
    EmbeddedRedis replica =
        cluster.closeAfterTest(EmbeddedRedis.startWith("replicaof 127.0.0.1 " + master.port()));
    RedisSentinel sentinel = cluster.closeAfterTest(RedisSentinel.watching(master.port()));
    // The sentinel learns of the replica from the master's INFO, every 10 s.
    Await.until(
        Duration.ofSeconds(30), "the sentinel knows the replica", () -> sentinel.replicas() == 1);
    threeGatewaysOn(sentinel.url());

    String quiet = aStormWith(100, "no fault", () -> {});
    String killed =
        aStormWith(
            200,
            "master killed, the sentinel fails over",
            () -> {
              master.stop();
              Await.until(
                  PATIENCE,
                  "the sentinel names the replica master",
                  () -> sentinel.masterPort() == replica.port());
            });
    log.warn("redis sentinel:\n{}\n{}", quiet, killed);
  }

  /** Starts gateways a, b and c on the Redis at {@code redisUrl}, and the storm over them. */
  private void threeGatewaysOn(String redisUrl) {
    List<Gateway> gateways = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      Map<String, String> env = cluster.environment(name);
      env.put("BOLO_REDIS_URL", redisUrl);
      gateways.add(cluster.closeAfterTest(Gateway.withRealTime(env)));
    }
    storm = new Storm(gateways, provider, COPIES, PATIENCE);
  }

  /** A storm of new notes (from {@code seed}) with {@code fault} in the middle; its figures. */
  private String aStormWith(long seed, String what, Storm.Fault fault) throws Exception {
    // Every claim was made a second or more before the fault, so the replica holds it.
    Storm running = java.util.Objects.requireNonNull(storm, "no gateways started");
    return running.oneCallPerNoteThrough(
        Storm.notes(NOTES, NOTE_MILLIS, seed),
        NOTE_MILLIS,
        what,
        fault,
        () -> cluster.chargedMillis("alpha"));
  }
}
