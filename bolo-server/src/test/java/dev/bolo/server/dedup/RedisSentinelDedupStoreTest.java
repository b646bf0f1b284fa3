package dev.bolo.server.dedup;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract through Redis Sentinel ({@code redis-sentinel://host:port#master}), as
 * operators run a replicated Redis: the gateway asks the sentinel for the master and talks to it.
 * The sentinel is Debian's {@code redis-server --sentinel} (installed by {@code .ci/run}), started
 * by the test in front of an embedded master.
 */
class RedisSentinelDedupStoreTest extends RedisStoreContract {

  private static @Nullable EmbeddedRedis master;
  private static @Nullable Process sentinel;
  private static int sentinelPort;

  @BeforeAll
  static void startMasterAndSentinel() throws Exception {
    master = EmbeddedRedis.start();
    Path dir = Files.createTempDirectory("bolo-sentinel-");
    try (ServerSocket free = new ServerSocket(0)) {
      sentinelPort = free.getLocalPort();
    }
    Path config = dir.resolve("sentinel.conf");
    Files.writeString(
        config,
        """
        port %d
        bind 127.0.0.1
        dir %s
        sentinel monitor bolo 127.0.0.1 %d 1
        sentinel down-after-milliseconds bolo 2000
        """
            .formatted(sentinelPort, dir, master.port()));
    sentinel =
        new ProcessBuilder("redis-server", config.toString(), "--sentinel")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("sentinel.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket probe = new Socket("127.0.0.1", sentinelPort)) {
        return;
      } catch (IOException notYet) {
        if (!sentinel.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "redis sentinel did not start: " + Files.readString(dir.resolve("sentinel.log")));
        }
        Thread.sleep(50);
      }
    }
  }

  @AfterAll
  static void stop() {
    if (sentinel != null) {
      sentinel.destroy();
    }
    if (master != null) {
      master.close();
    }
  }

  @Override
  String redisUrl() {
    return "redis-sentinel://127.0.0.1:" + sentinelPort + "#bolo";
  }
}
