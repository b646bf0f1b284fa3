package dev.bolo.server.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Where Redis is: one standalone server ({@code redis://host:port}) or the seed nodes of a Redis
 * Cluster (several URLs separated by commas, or one node of it: the cluster is found by asking it;
 * {@code host:port} without a scheme is accepted).
 *
 * @param nodes the server, or the cluster's seed nodes
 * @param cluster true for a Redis Cluster
 */
public record RedisEndpoint(List<RedisURI> nodes, boolean cluster, @Nullable Path trustedCa) {

  /**
   * Upper bound of Lettuce's reconnect back-off. Its default grows to 30 s, which would keep the
   * store on its local fallback for up to 30 s after Redis is back. Each instance must see Redis
   * back within a fifth of a second, as its fail-open store's probe does: copies waiting for
   * another instance's claim trust it only for a lease after Redis lost sight of it.
   */
  private static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(200);

  public RedisEndpoint(List<RedisURI> nodes, boolean cluster) {
    this(nodes, cluster, null);
  }

  public RedisEndpoint {
    nodes = List.copyOf(nodes);
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("a Redis endpoint needs at least one node");
    }
  }

  /**
   * Parses {@code BOLO_REDIS_URL}.
   *
   * @throws IllegalArgumentException if a part is not a Redis URL
   */
  public static RedisEndpoint parse(String url) {
    List<RedisURI> nodes = new ArrayList<>();
    for (String part : url.split(",", -1)) {
      String node = part.strip();
      if (node.isEmpty()) {
        throw new IllegalArgumentException("empty node in Redis URL: '" + url + "'");
      }
      try {
        nodes.add(RedisURI.create(node.contains("://") ? node : "redis://" + node));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("not a Redis URL: '" + node + "': " + e.getMessage(), e);
      }
    }
    return new RedisEndpoint(nodes, nodes.size() > 1);
  }

  /**
   * This endpoint with {@code caFile} (PEM, one or several CA certificates) as what a {@code
   * rediss://} server's certificate must chain to, instead of the JVM's trusted CAs; null keeps
   * those.
   */
  public RedisEndpoint trusting(@Nullable Path caFile) {
    return new RedisEndpoint(nodes, cluster, caFile);
  }

  /** Host and port of each node, for logs (never the password). */
  public String describe() {
    return nodes.stream()
        .map(
            n ->
                n.getSentinels().isEmpty()
                    ? n.getHost() + ":" + n.getPort()
                    : "sentinel "
                        + n.getSentinels().getFirst().getHost()
                        + ":"
                        + n.getSentinels().getFirst().getPort()
                        + " master "
                        + n.getSentinelMasterId())
        .collect(Collectors.joining(",", cluster ? "cluster " : "", ""));
  }

  /** The open connections of one store; closing releases them and the client's threads. */
  public interface Connections extends AutoCloseable {
    RedisClusterCommands<String, String> commands();

    StatefulRedisPubSubConnection<String, String> pubSub();

    /** Whether these are connections to a Redis Cluster (a script reaches one slot only). */
    boolean clustered();

    @Override
    void close();
  }

  /**
   * Opens a command and a pub/sub connection. Commands time out after {@code timeout}; on a
   * standalone server they also fail at once while disconnected instead of queueing until Redis
   * returns. The connections reconnect and re-subscribe by themselves.
   *
   * @param onDisconnect called (on a Lettuce thread, must not block) whenever a connection drops,
   *     e.g. because Redis restarted and forgot its data
   * @throws RedisException if Redis is unreachable
   */
  public Connections connect(Duration timeout, Runnable onDisconnect) {
    ClientResources resources =
        DefaultClientResources.builder()
            .reconnectDelay(
                Delay.exponential(
                    Duration.ofMillis(20), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
            .build();
    try {
      // Managed clusters are handed out as one seed node: ask it, and let the cluster client
      // discover the other nodes from it rather than meet MOVED on every other slot.
      return cluster || clusterEnabled(resources, timeout)
          ? connectCluster(resources, timeout, onDisconnect)
          : connectStandalone(resources, timeout, onDisconnect);
    } catch (RuntimeException e) {
      resources.shutdown(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Whether the one node given is part of a Redis Cluster ({@code INFO cluster}). */
  private boolean clusterEnabled(ClientResources resources, Duration timeout) {
    RedisURI uri = nodes.getFirst();
    uri.setTimeout(timeout);
    RedisClient probe = RedisClient.create(resources);
    // The same TLS trust as the store's own connections: a private CA's server is asked too.
    probe.setOptions(timingOut(ClientOptions.builder(), timeout).build());
    try (StatefulRedisConnection<String, String> connection = probe.connect(uri)) {
      return connection.sync().info("cluster").contains("cluster_enabled:1");
    } finally {
      // The resources are the caller's: shutting the probe down leaves them running.
      probe.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }

  private Connections connectStandalone(
      ClientResources resources, Duration timeout, Runnable onDisconnect) {
    RedisURI uri = nodes.getFirst();
    uri.setTimeout(timeout);
    RedisClient client = RedisClient.create(resources);
    client.addListener(disconnectListener(onDisconnect));
    client.setOptions(
        timingOut(ClientOptions.builder(), timeout)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    return open(
        client,
        resources,
        false,
        () -> client.connect(uri),
        StatefulRedisConnection::sync,
        () -> client.connectPubSub(uri));
  }

  private Connections connectCluster(
      ClientResources resources, Duration timeout, Runnable onDisconnect) {
    nodes.forEach(node -> node.setTimeout(timeout));
    RedisClusterClient client = RedisClusterClient.create(resources, nodes);
    client.addListener(disconnectListener(onDisconnect));
    client.setOptions(
        timingOut(ClusterClientOptions.builder(), timeout)
            // Not REJECT_COMMANDS: node connections open lazily, and the first command to a node
            // would be rejected before its connection is up. A dead node costs one command timeout.
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
            // Follow fail-overs and resharding without waiting for a periodic refresh.
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
            .build());
    return open(
        client,
        resources,
        true,
        client::connect,
        StatefulRedisClusterConnection::sync,
        client::connectPubSub);
  }

  /**
   * Opens the command connection, then the pub/sub one, on {@code client}; closing them shuts the
   * client and its resources down. When either fails, the client is shut down and the failure
   * thrown.
   */
  private static <C extends StatefulConnection<String, String>> Connections open(
      AbstractRedisClient client,
      ClientResources resources,
      boolean clustered,
      Supplier<C> connectCommands,
      Function<C, RedisClusterCommands<String, String>> sync,
      Supplier<StatefulRedisPubSubConnection<String, String>> connectPubSub) {
    try {
      C commands = connectCommands.get();
      StatefulRedisPubSubConnection<String, String> pubSub = connectPubSub.get();
      return new Opened(
          sync.apply(commands),
          pubSub,
          clustered,
          () -> {
            pubSub.close();
            commands.close();
            shutdown(client, resources);
          });
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      throw e;
    }
  }

  /**
   * Either client's options with its connecting and every command timing out after {@code timeout}.
   */
  private <B extends ClientOptions.Builder> B timingOut(B builder, Duration timeout) {
    builder
        .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
        .timeoutOptions(TimeoutOptions.enabled(timeout));
    if (trustedCa != null) {
      builder.sslOptions(
          SslOptions.builder().jdkSslProvider().trustManager(trustedCa.toFile()).build());
    }
    return builder;
  }

  private static RedisConnectionStateListener disconnectListener(Runnable onDisconnect) {
    return new RedisConnectionStateListener() {
      @Override
      public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        onDisconnect.run();
      }
    };
  }

  private static void shutdown(AbstractRedisClient client, ClientResources resources) {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
  }

  private record Opened(
      RedisClusterCommands<String, String> commands,
      StatefulRedisPubSubConnection<String, String> pubSub,
      boolean clustered,
      Runnable closer)
      implements Connections {
    @Override
    public void close() {
      closer.run();
    }
  }
}
