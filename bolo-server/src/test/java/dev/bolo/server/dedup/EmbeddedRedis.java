package dev.bolo.server.dedup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import redis.embedded.RedisServer;

/**
 * A throwaway Redis server on a free loopback port, from the embedded-redis binaries on Maven
 * Central; it can be stopped and started again on the same port to play an outage. Used by the
 * store tests and the multi-instance gateway tests. Not thread safe: one test drives it.
 */
public final class EmbeddedRedis implements AutoCloseable {

  private final int port;
  private RedisServer server;

  private EmbeddedRedis(int port) {
    this.port = port;
    this.server = newServer(port);
  }

  /** Starts Redis on a free port. */
  public static EmbeddedRedis start() {
    EmbeddedRedis redis = notStarted();
    redis.startAgain();
    return redis;
  }

  /** Reserves a free port for a Redis that {@link #startAgain} starts. */
  public static EmbeddedRedis notStarted() {
    return new EmbeddedRedis(freePort());
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
      server = newServer(port);
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start Redis on port " + port, e);
    }
  }

  @Override
  public void close() {
    if (server.isActive()) {
      stop();
    }
  }

  private static RedisServer newServer(int port) {
    try {
      return RedisServer.newRedisServer()
          .port(port)
          .bind("127.0.0.1")
          .setting("save \"\"")
          .setting("appendonly no")
          .build();
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
