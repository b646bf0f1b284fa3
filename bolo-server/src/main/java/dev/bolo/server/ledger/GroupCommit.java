package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the ledger's writes from many requests in one transaction each time, on one writer thread:
 * with SQLite's single writer and {@code synchronous=FULL}, every transaction costs a disk flush,
 * and concurrent notes would otherwise queue for a flush each (measured: 62 notes/s under 50
 * connections). Writes that arrive while a batch commits form the next batch, so a write waits for
 * at most the batch in progress and its own.
 *
 * <p>Bounded: at most {@link #CAPACITY} writes wait; beyond that {@link #submit} fails at once. If
 * a batch's transaction fails, each of its writes is tried again alone, so one bad write never
 * takes the others with it.
 */
final class GroupCommit implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

  static final int CAPACITY = 10_000;

  private static final int MAX_BATCH = 512;

  /** One write, run inside the batch's transaction. */
  @FunctionalInterface
  interface Write<T> {
    T run(Connection connection) throws SQLException;
  }

  private record Pending<T>(String what, Write<T> write, CompletableFuture<T> done) {
    void runAlone(Jdbc jdbc) {
      try {
        done.complete(jdbc.inTransaction(what, write::run));
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    }

    void runIn(Connection connection, List<Runnable> onCommit) throws SQLException {
      T result = write.run(connection);
      onCommit.add(() -> done.complete(result));
    }
  }

  private static final Pending<Boolean> STOP =
      new Pending<>("stop", c -> true, new CompletableFuture<>());

  private final Jdbc jdbc;
  private final BlockingQueue<Pending<?>> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final Thread writer;
  private volatile boolean closed;

  GroupCommit(Jdbc jdbc) {
    this.jdbc = jdbc;
    this.writer = Thread.ofPlatform().name("bolo-ledger-writer").daemon().start(this::writeLoop);
  }

  /** Queues {@code write}; the future completes once its transaction has committed. */
  <T> CompletableFuture<T> submit(String what, Write<T> write) {
    Pending<T> pending = new Pending<>(what, write, new CompletableFuture<>());
    if (closed || !queue.offer(pending)) {
      String reason = closed ? "ledger closed" : "ledger write queue full";
      pending
          .done()
          .completeExceptionally(
              new LedgerException(what + " failed: " + reason, new IllegalStateException(reason)));
    }
    return pending.done();
  }

  /** Runs {@code write} in the next batch and waits for its commit, at most {@code timeout}. */
  <T> T await(String what, Write<T> write, Duration timeout) {
    CompletableFuture<T> done = submit(what, write);
    try {
      return done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw new LedgerException(what + " failed", e);
    } catch (TimeoutException e) {
      throw new LedgerException(
          what + " failed: no commit within " + timeout.toMillis() + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LedgerException(what + " interrupted", e);
    }
  }

  private void writeLoop() {
    List<Pending<?>> batch = new ArrayList<>();
    while (true) {
      batch.clear();
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(batch, MAX_BATCH - 1);
      boolean stop = batch.remove(STOP);
      if (!batch.isEmpty()) {
        commit(batch);
      }
      if (stop) {
        List<Pending<?>> rest = new ArrayList<>();
        queue.drainTo(rest);
        rest.remove(STOP);
        if (!rest.isEmpty()) {
          commit(rest);
        }
        return;
      }
    }
  }

  private void commit(List<Pending<?>> batch) {
    if (batch.size() == 1) {
      batch.getFirst().runAlone(jdbc);
      return;
    }
    List<Runnable> onCommit = new ArrayList<>(batch.size());
    try {
      jdbc.inTransaction(
          "ledger batch of " + batch.size(),
          c -> {
            for (Pending<?> pending : batch) {
              pending.runIn(c, onCommit);
            }
            return batch.size();
          });
      onCommit.forEach(Runnable::run);
    } catch (RuntimeException e) {
      log.debug("ledger batch of {} failed, writing one by one: {}", batch.size(), e.getMessage());
      batch.forEach(pending -> pending.runAlone(jdbc));
    }
  }

  /** Commits what is queued, then stops the writer; later submissions fail. */
  @Override
  public void close() {
    closed = true;
    try {
      queue.put(STOP);
      writer.join(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
