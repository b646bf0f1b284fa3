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
 * <p>A write nobody waits for ({@link #submit}: a usage row) may wait up to {@link #LINGER} for
 * company, so that it rides in the next charge's transaction instead of paying a commit (a disk
 * flush and the pages it changed) of its own; a write somebody waits for ({@link #await}) commits
 * at once, with whatever is queued.
 *
 * <p>Bounded: at most {@link #CAPACITY} writes wait; beyond that {@link #submit} fails at once. If
 * a batch's transaction fails, each of its writes is tried again alone, so one bad write never
 * takes the others with it.
 */
final class GroupCommit implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

  static final int CAPACITY = 10_000;

  private static final int MAX_BATCH = 512;

  /** Longest a write nobody waits for is held back to share a commit. */
  static final Duration LINGER = Duration.ofMillis(50);

  /** One write, run inside the batch's transaction. */
  @FunctionalInterface
  interface Write<T> {
    T run(Connection connection) throws SQLException;
  }

  private record Pending<T>(
      String what, Write<T> write, boolean urgent, CompletableFuture<T> done) {
    void runAlone(Jdbc jdbc) {
      try {
        done.complete(jdbc.inTransaction(what, write::run));
      } catch (RuntimeException | Error e) {
        // Even an Error fails only this write: the writer thread lives on for the next ones.
        done.completeExceptionally(e);
      }
    }

    void runIn(Connection connection, List<Runnable> onCommit) throws SQLException {
      T result = write.run(connection);
      onCommit.add(() -> done.complete(result));
    }
  }

  private static final Pending<Boolean> STOP =
      new Pending<>("stop", c -> true, true, new CompletableFuture<>());

  private final Jdbc jdbc;
  private final BlockingQueue<Pending<?>> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final Thread writer;
  private volatile boolean closed;

  GroupCommit(Jdbc jdbc) {
    this.jdbc = jdbc;
    this.writer = Thread.ofPlatform().name("bolo-ledger-writer").daemon().start(this::writeLoop);
  }

  /**
   * Queues {@code write}, which nobody waits for: it may wait up to {@link #LINGER} for company.
   * The future completes once its transaction has committed.
   */
  <T> CompletableFuture<T> submit(String what, Write<T> write) {
    return enqueue(new Pending<>(what, write, false, new CompletableFuture<>()));
  }

  private <T> CompletableFuture<T> enqueue(Pending<T> pending) {
    String what = pending.what();
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
    CompletableFuture<T> done =
        enqueue(new Pending<>(what, write, true, new CompletableFuture<>()));
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
      boolean interrupted = !lingerForCompany(batch);
      boolean stop = batch.remove(STOP) | interrupted;
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

  /**
   * While {@code batch} holds only writes nobody waits for, waits for more until {@link #LINGER}
   * after it began or the batch is full; false if interrupted.
   */
  private boolean lingerForCompany(List<Pending<?>> batch) {
    boolean urgent = batch.stream().anyMatch(Pending::urgent);
    long until = System.nanoTime() + LINGER.toNanos();
    while (!urgent && batch.size() < MAX_BATCH) {
      long left = until - System.nanoTime();
      Pending<?> next;
      try {
        next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
      } catch (InterruptedException e) {
        return false;
      }
      if (next == null) {
        return true;
      }
      int from = batch.size();
      batch.add(next);
      queue.drainTo(batch, MAX_BATCH - batch.size());
      urgent = batch.subList(from, batch.size()).stream().anyMatch(Pending::urgent);
    }
    return true;
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
    } catch (RuntimeException | Error e) {
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
