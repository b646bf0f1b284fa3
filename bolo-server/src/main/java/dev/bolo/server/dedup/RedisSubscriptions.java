package dev.bolo.server.dedup;

import io.lettuce.core.RedisException;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Many waiters over one pub/sub connection: a channel is subscribed while at least one waiter
 * listens on it, and each message completes every waiter of its channel.
 *
 * <p>Thread safe. Subscribe and unsubscribe commands for one channel are issued inside that
 * channel's map entry update, so they reach Redis in the order the waiters came and went.
 */
final class RedisSubscriptions extends RedisPubSubAdapter<String, String> {

  private final StatefulRedisPubSubConnection<String, String> connection;
  private final Duration timeout;
  private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();

  private record Channel(Set<CompletableFuture<String>> waiters, CompletableFuture<?> subscribed) {
    boolean hasFailed() {
      return subscribed.isCompletedExceptionally();
    }
  }

  RedisSubscriptions(StatefulRedisPubSubConnection<String, String> connection, Duration timeout) {
    this.connection = connection;
    this.timeout = timeout;
    connection.addListener(this);
  }

  /**
   * Adds {@code waiter} to {@code channel}'s waiters and returns once Redis confirmed the
   * subscription, so every message published from then on reaches the waiter.
   *
   * @throws RedisException if Redis does not confirm in time; the waiter is removed again
   */
  void listen(String channel, CompletableFuture<String> waiter) throws InterruptedException {
    Channel entry =
        channels.compute(
            channel,
            (name, current) -> {
              // A subscription that failed (Redis was down) is retried by the next waiter.
              Channel live =
                  current == null || current.hasFailed()
                      ? new Channel(
                          current == null ? ConcurrentHashMap.newKeySet() : current.waiters(),
                          connection.async().subscribe(name).toCompletableFuture())
                      : current;
              live.waiters().add(waiter);
              return live;
            });
    try {
      entry.subscribed().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      leave(channel, waiter);
      throw new RedisException("could not subscribe to " + channel + ": " + e, e);
    } catch (InterruptedException e) {
      leave(channel, waiter);
      throw e;
    }
  }

  /** Removes {@code waiter}; the last waiter to leave a channel unsubscribes it. */
  void leave(String channel, CompletableFuture<String> waiter) {
    channels.computeIfPresent(
        channel,
        (name, current) -> {
          current.waiters().remove(waiter);
          if (!current.waiters().isEmpty()) {
            return current;
          }
          if (!current.hasFailed()) {
            // Fire and forget: a lost unsubscribe only costs a message nobody listens to.
            connection.async().unsubscribe(name);
          }
          return null;
        });
  }

  @Override
  public void message(String channel, String message) {
    Channel entry = channels.get(channel);
    if (entry != null) {
      entry.waiters().forEach(waiter -> waiter.complete(message));
    }
  }
}
