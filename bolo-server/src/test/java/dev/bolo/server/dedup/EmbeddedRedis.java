package dev.bolo.server.dedup;

import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import redis.embedded.RedisServer;

/**
 * A throwaway Redis server on a free loopback port, from the embedded-redis binaries on Maven
 * Central; it can be stopped and started again on the same port to play an outage. Used by the
 * store tests and the multi-instance gateway tests. Not thread safe: one test drives it.
 */
public final class EmbeddedRedis implements AutoCloseable {

  private final int port;
  private final List<String> settings;
  private RedisServer server;

  /**
   * Where the running server writes: a replica's full sync leaves an RDB file there even without
   * persistence. A new one for each start, so a restart begins empty; deleted when it stops.
   */
  private Path dir;

  private EmbeddedRedis(int port, List<String> settings) {
    this.port = port;
    this.settings = List.copyOf(settings);
    this.dir = newDir();
    this.server = newServer(port, this.settings, dir);
  }

  /** Starts Redis on a free port with these lines of configuration besides the usual ones. */
  public static EmbeddedRedis startWith(String... settings) {
    EmbeddedRedis redis = new EmbeddedRedis(freePort(), List.of(settings));
    redis.startAgain();
    return redis;
  }

  /** Starts Redis on a free port. */
  public static EmbeddedRedis start() {
    EmbeddedRedis redis = notStarted();
    redis.startAgain();
    return redis;
  }

  /** Reserves a free port for a Redis that {@link #startAgain} starts. */
  public static EmbeddedRedis notStarted() {
    return new EmbeddedRedis(freePort(), List.of());
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Stops the server; its data is lost, as after a crash without persistence. */
  public void stop() {
    try {
      server.stop();
      Directories.deleteTree(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the server (again) on the same port. */
  public void startAgain() {
    try {
      if (server.isActive()) {
        return;
      }
      Directories.deleteTree(dir);
      dir = newDir();
      server = newServer(port, settings, dir);
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start Redis on port " + port, e);
    }
  }

  @Override
  public void close() {
    if (server.isActive()) {
      stop();
      return;
    }
    try {
      Directories.deleteTree(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path newDir() {
    try {
      return Files.createTempDirectory("bolo-redis-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static RedisServer newServer(int port, List<String> settings, Path dir) {
    try {
      var builder =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("dir " + dir)
              .setting("save \"\"")
              .setting("appendonly no");
      settings.forEach(builder::setting);
      return builder.build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
