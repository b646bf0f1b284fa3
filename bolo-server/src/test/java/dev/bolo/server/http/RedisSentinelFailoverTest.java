package dev.bolo.server.http;

import dev.bolo.server.dedup.EmbeddedRedis;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three gateways on a replicated Redis behind Sentinel, given to them as {@code
 * redis-sentinel://host:port#bolo}: a master, its replica, a sentinel that counts the master down
 * after 2 s. A storm of duplicate notes runs through it, then another in the middle of which the
 * master is killed and the sentinel fails it over to the replica. Counts provider calls and
 * charges.
 */
class RedisSentinelFailoverTest {

  private static final Logger log = LoggerFactory.getLogger(RedisSentinelFailoverTest.class);

  /** Longer than a killed master takes to be replaced (2 s to count it down, then the election). */
  private static final Duration LEASE = Duration.ofSeconds(8);

  private static final int NOTES = 30;
  private static final int COPIES = 4;
  private static final int NOTE_MILLIS = 2000;
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @RegisterExtension
  final ClusterExtension cluster =
      new ClusterExtension(Map.of("BOLO_LEASE", LEASE.toMillis() + "ms"));

  private final List<Gateway> gateways = new ArrayList<>();
  private EmbeddedRedis master;
  private EmbeddedRedis replica;
  private RedisSentinel sentinel;
  private FakeProvider provider;
  private Storm storm;

  @BeforeEach
  void startThreeInstancesBehindASentinel() throws Exception {
    provider = cluster.provider();
    provider.delay(Duration.ofMillis(500));
    // Closed after the instances, which the cluster closes first (last registered, first closed).
    master = cluster.closeAfterTest(EmbeddedRedis.start());
    replica =
        cluster.closeAfterTest(EmbeddedRedis.startWith("replicaof 127.0.0.1 " + master.port()));
    sentinel = cluster.closeAfterTest(RedisSentinel.watching(master.port()));
    // The sentinel learns of the replica from the master's INFO, every 10 s.
    Await.until(
        Duration.ofSeconds(30), "the sentinel knows the replica", () -> sentinel.replicas() == 1);
    for (String name : List.of("a", "b", "c")) {
      Map<String, String> env = cluster.environment(name);
      env.put("BOLO_REDIS_URL", sentinel.url());
      gateways.add(cluster.closeAfterTest(Gateway.withRealTime(env)));
    }
    storm = new Storm(gateways, provider, COPIES, PATIENCE);
  }

  @AfterEach
  void hangUp() {
    storm.close();
  }

  @Test
  void aStormThroughSentinelCostsOneCallPerNoteThroughAKilledMastersFailOver() throws Exception {
    String quiet = aStormWith(Storm.notes(NOTES, NOTE_MILLIS, 100), "no fault", () -> {});
    String killed =
        aStormWith(
            Storm.notes(NOTES, NOTE_MILLIS, 200),
            "master killed, the sentinel fails over",
            () -> {
              master.stop();
              Await.until(
                  PATIENCE,
                  "the sentinel names the replica master",
                  () -> sentinel.masterPort() == replica.port());
            });
    // WARN: the test log level, so the figures show in every build.
    log.warn("redis sentinel:\n{}\n{}", quiet, killed);
  }

  private String aStormWith(List<byte[]> notes, String what, Storm.Fault fault) throws Exception {
    // Every claim was made a second or more before the fault, so the replica holds it.
    return storm.oneCallPerNoteThrough(
        notes, NOTE_MILLIS, what, fault, () -> cluster.chargedMillis("alpha"));
  }
}
