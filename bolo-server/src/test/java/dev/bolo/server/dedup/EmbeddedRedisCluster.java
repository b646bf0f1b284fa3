package dev.bolo.server.dedup;

import static dev.bolo.server.dedup.DedupStoreContract.eventually;

import dev.bolo.testkit.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import redis.embedded.RedisServer;

/**
 * A throwaway Redis Cluster on loopback (embedded-redis binaries), its slots spread evenly over its
 * masters, optionally with one replica per master that a test can fail over to; built with plain
 * cluster commands so no extra client library is needed.
 */
public final class EmbeddedRedisCluster implements AutoCloseable {

  private static final int SLOTS = 16384;

  private final List<RedisServer> servers = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final Path dir;

  private EmbeddedRedisCluster(Path dir) {
    this.dir = dir;
  }

  public static EmbeddedRedisCluster start(int masters) {
    try {
      EmbeddedRedisCluster cluster =
          new EmbeddedRedisCluster(Files.createTempDirectory("redis-cluster"));
      cluster.startNodes(masters);
      cluster.join();
      return cluster;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link #start} with one replica per master, each in sync before this returns. */
  public static EmbeddedRedisCluster startWithReplicas(int masters) {
    EmbeddedRedisCluster cluster = start(masters);
    try {
      cluster.startNodes(masters);
      cluster.replicate(masters);
      return cluster;
    } catch (IOException | RuntimeException e) {
      try {
        cluster.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** The seed nodes (the masters as started), as {@code BOLO_REDIS_URL} names them. */
  public String url() {
    return ports.stream().map(p -> "redis://127.0.0.1:" + p).collect(Collectors.joining(","));
  }

  /** One node as a seed, as managed clusters hand it out. */
  public String seedUrl() {
    return "redis://127.0.0.1:" + ports.getFirst();
  }

  /**
   * Fails master {@code master} over to its replica the way an operator does ({@code CLUSTER
   * FAILOVER} on the replica: the two agree on the replication offset first, so nothing is lost)
   * and returns once the replica is master.
   */
  public void failOverGracefully(int master) {
    int replica = replicaOf(master);
    withNode(replica, node -> node.sync().clusterFailover(false));
    awaitMaster(replica);
  }

  /** Kills master {@code master} and returns once the cluster has promoted its replica. */
  public void killMaster(int master) {
    try {
      servers.get(master).stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    awaitMaster(replicaOf(master));
  }

  private int replicaOf(int master) {
    int masters = servers.size() / 2;
    if (servers.size() % 2 != 0 || master >= masters) {
      throw new IllegalArgumentException("no replica for master " + master);
    }
    return masters + master;
  }

  private void awaitMaster(int node) {
    withNode(
        node,
        connection -> {
          try {
            Await.until(
                Duration.ofSeconds(30),
                "the replica on port " + ports.get(node) + " is master",
                () ->
                    connection.sync().info("replication").contains("role:master")
                        && connection.sync().clusterInfo().contains("cluster_state:ok"));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for a fail-over", e);
          }
        });
  }

  private void withNode(
      int node, java.util.function.Consumer<StatefulRedisConnection<String, String>> action) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> connection =
        client.connect(RedisURI.create("127.0.0.1", ports.get(node)))) {
      action.accept(connection);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Makes the nodes after the first {@code masters} replicas of the masters, in order. */
  private void replicate(int masters) {
    RedisClient client = RedisClient.create();
    try {
      StatefulRedisConnection<String, String> seed =
          client.connect(RedisURI.create("127.0.0.1", ports.getFirst()));
      List<String> masterIds = new ArrayList<>();
      for (int i = 0; i < masters; i++) {
        try (StatefulRedisConnection<String, String> master =
            client.connect(RedisURI.create("127.0.0.1", ports.get(i)))) {
          masterIds.add(master.sync().clusterMyId());
        }
      }
      for (int i = 0; i < masters; i++) {
        seed.sync().clusterMeet("127.0.0.1", ports.get(masters + i));
      }
      for (int i = 0; i < masters; i++) {
        String masterId = masterIds.get(i);
        try (StatefulRedisConnection<String, String> replica =
            client.connect(RedisURI.create("127.0.0.1", ports.get(masters + i)))) {
          eventually(
              "the new node knows its master",
              () -> replica.sync().clusterNodes().contains(masterId));
          replica.sync().clusterReplicate(masterId);
          eventually(
              "the replica is in sync",
              () -> replica.sync().info("replication").contains("master_link_status:up"));
        }
      }
      seed.close();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    // Every node, the new replicas too, must know every node and every slot's master before a
    // client reads the topology: a client that took a newly met replica's view, its slots not yet
    // gossiped, found slot 7552 without a master at a gateway's first claim (seen once in a
    // whole-suite run), and served that moment without de-duplication across instances.
    awaitAgreement();
  }

  /** Returns once every node sees all the nodes, every slot served, and the cluster ok. */
  private void awaitAgreement() {
    RedisClient client = RedisClient.create();
    try {
      for (int port : ports) {
        try (StatefulRedisConnection<String, String> node =
            client.connect(RedisURI.create("127.0.0.1", port))) {
          eventually(
              "node " + port + " sees " + ports.size() + " nodes and every slot served",
              () -> {
                String info = node.sync().clusterInfo();
                return info.contains("cluster_state:ok")
                    && info.contains("cluster_slots_ok:" + SLOTS)
                    && info.contains("cluster_known_nodes:" + ports.size());
              });
        }
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private void startNodes(int masters) throws IOException {
    for (int i = 0; i < masters; i++) {
      int port = freePort();
      RedisServer server =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("save \"\"")
              .setting("appendonly no")
              .setting("dir " + dir)
              .setting("cluster-enabled yes")
              .setting("cluster-config-file nodes-" + port + ".conf")
              .setting("cluster-node-timeout 2000")
              .build();
      server.start();
      servers.add(server);
      ports.add(port);
    }
  }

  private void join() {
    int masters = ports.size();
    RedisClient client = RedisClient.create();
    try {
      List<StatefulRedisConnection<String, String>> nodes = new ArrayList<>();
      for (int port : ports) {
        nodes.add(client.connect(RedisURI.create("127.0.0.1", port)));
      }
      for (int i = 0; i < masters; i++) {
        int from = i * SLOTS / masters;
        int to = (i + 1) * SLOTS / masters;
        nodes.get(i).sync().clusterAddSlots(IntStream.range(from, to).toArray());
      }
      for (int i = 1; i < masters; i++) {
        nodes.getFirst().sync().clusterMeet("127.0.0.1", ports.get(i));
      }
      nodes.forEach(StatefulRedisConnection::close);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    awaitAgreement();
  }

  @Override
  public void close() throws IOException {
    for (RedisServer server : servers) {
      if (server.isActive()) {
        server.stop();
      }
    }
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }
    Files.delete(dir);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
