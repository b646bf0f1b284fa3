package dev.bolo.server.dedup;

import dev.bolo.testkit.Directories;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Sentinel watching a master named {@code bolo}: Debian's {@code redis-server --sentinel}
 * (installed by {@code .ci/run}), started on a free loopback port, with a quorum of one and a
 * master counted down after 2 s.
 */
public final class RedisSentinel implements AutoCloseable {

  /** The name the sentinel knows the master by. */
  public static final String MASTER = "bolo";

  private final Process process;
  private final int port;
  private final Path dir;

  private RedisSentinel(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** Starts a sentinel watching the master on {@code masterPort}; returns once it listens. */
  public static RedisSentinel watching(int masterPort) {
    try {
      Path dir = Files.createTempDirectory("bolo-sentinel-");
      int port;
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      }
      Path config = dir.resolve("sentinel.conf");
      Files.writeString(
          config,
          """
          port %d
          bind 127.0.0.1
          dir %s
          sentinel monitor %s 127.0.0.1 %d 1
          sentinel down-after-milliseconds %s 2000
          sentinel failover-timeout %s 10000
          """
              .formatted(port, dir, MASTER, masterPort, MASTER, MASTER));
      Process process =
          new ProcessBuilder("redis-server", config.toString(), "--sentinel")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("sentinel.log").toFile())
              .start();
      RedisSentinel sentinel = new RedisSentinel(process, port, dir);
      sentinel.awaitListening();
      return sentinel;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The URL a gateway is given: the sentinel and the master's name. */
  public String url() {
    return "redis-sentinel://127.0.0.1:" + port + "#" + MASTER;
  }

  /** The port of the master as the sentinel names it now. */
  public int masterPort() {
    RedisClient client = RedisClient.create();
    try (var connection = client.connectSentinel(RedisURI.create("127.0.0.1", port))) {
      return ((InetSocketAddress) connection.sync().getMasterAddrByName(MASTER)).getPort();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** How many replicas of the master the sentinel knows. */
  public int replicas() {
    RedisClient client = RedisClient.create();
    try (var connection = client.connectSentinel(RedisURI.create("127.0.0.1", port))) {
      return connection.sync().replicas(MASTER).size();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private void awaitListening() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket probe = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "redis sentinel did not start: " + Files.readString(dir.resolve("sentinel.log")));
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted starting a sentinel", e);
        }
      }
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
      Directories.deleteTree(dir);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + dir, e);
    }
  }
}
