package dev.bolo.server.dedup;

import static dev.bolo.server.dedup.DedupStoreContract.eventually;

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
 * A throwaway three-master Redis Cluster on loopback (embedded-redis binaries), its slots spread
 * evenly; built with plain cluster commands so no extra client library is needed.
 */
final class EmbeddedRedisCluster implements AutoCloseable {

  private static final int SLOTS = 16384;

  private final List<RedisServer> servers = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final Path dir;

  private EmbeddedRedisCluster(Path dir) {
    this.dir = dir;
  }

  static EmbeddedRedisCluster start(int masters) {
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

  /** The seed nodes, as {@code BOLO_REDIS_URL} names them. */
  String url() {
    return ports.stream().map(p -> "redis://127.0.0.1:" + p).collect(Collectors.joining(","));
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
      for (StatefulRedisConnection<String, String> node : nodes) {
        eventually(
            "the cluster is formed", () -> node.sync().clusterInfo().contains("cluster_state:ok"));
      }
      nodes.forEach(StatefulRedisConnection::close);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Override
  public void close() throws IOException {
    for (RedisServer server : servers) {
      server.stop();
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
