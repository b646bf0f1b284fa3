package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
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
 * <p>The writer is woken only when it has to act: a first write while it is idle, a write somebody
 * waits for, or a full batch. Writes that arrive while it lingers or commits are picked up when it
 * looks again, so a thousand usage rows a second cost about four wake-ups, not a thousand (measured
 * side by side under load: a wake-up per write cost 4-6 % of the gateway's CPU per note, in the
 * futex calls and thread switches of the writer and of the threads that woke it).
 *
 * <p>Bounded: at most {@link #CAPACITY} writes wait; beyond that {@link #submit} fails at once. If
 * a batch's transaction fails, each of its writes is tried again alone, so one bad write never
 * takes the others with it.
 */
final class GroupCommit implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

  static final int CAPACITY = 10_000;

  private static final int MAX_BATCH = 512;

  /**
   * Longest a write nobody waits for is held back to share a commit: the rows a {@code kill -9} can
   * lose. 250 ms rather than 50 costs 4-8 % less CPU per note under load (fewer commits, each page
   * written once for more rows; measured side by side, twice).
   */
  static final Duration LINGER = Duration.ofMillis(250);

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

  /** What the writer does now, which decides whether a new write must wake it. */
  private enum State {
    /** Parked until any write arrives. */
    IDLE,
    /** Parked until its batch's linger ends, a write somebody waits for arrives, or it fills. */
    LINGERING,
    /** Committing; looks at the queue again afterwards without being woken. */
    BUSY
  }

  private final Jdbc jdbc;
  private final Queue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final Thread writer;
  private volatile State state = State.BUSY;

  /** How many more writes the lingering batch takes; a queue that holds as many fills it. */
  private volatile int room = MAX_BATCH;

  private volatile boolean closed;

  /** Elapsed nanoseconds for the linger. */
  private final LongSupplier ticker;

  /**
   * A writer whose linger passes on {@code ticker}: the gateway's wire ticker, which passes in real
   * time, since every request's usage row waits on the linger ({@link LedgerTime#wireTicker}); a
   * test may move one by hand.
   */
  GroupCommit(Jdbc jdbc, LongSupplier ticker) {
    this.jdbc = jdbc;
    this.ticker = ticker;
    this.writer = Thread.ofPlatform().name("bolo-ledger-writer").daemon().start(this::writeLoop);
  }

  /** Whether the writer waits for company for a batch of writes nobody waits for (for tests). */
  boolean isLingering() {
    return state == State.LINGERING;
  }

  /**
   * Queues {@code write}, which nobody waits for: it may wait up to {@link #LINGER} for company.
   * The future completes once its transaction has committed.
   */
  <T> CompletableFuture<T> submit(String what, Write<T> write) {
    return enqueue(new Pending<>(what, write, false, new CompletableFuture<>()));
  }

  private <T> CompletableFuture<T> enqueue(Pending<T> pending) {
    boolean full = queued.incrementAndGet() > CAPACITY;
    if (closed || full) {
      queued.decrementAndGet();
      return refuse(pending, closed ? "ledger closed" : "ledger write queue full");
    }
    queue.offer(pending);
    // Closed meanwhile: the writer's last look at the queue may have come before this write.
    if (closed && queue.remove(pending)) {
      queued.decrementAndGet();
      return refuse(pending, "ledger closed");
    }
    // Read after the offer: a writer that went idle or began lingering before it sees this write
    // when it looks at the queue again, and one that does so after is woken here.
    State now = state;
    if (now == State.IDLE
        || (now == State.LINGERING && (pending.urgent() || queued.get() >= room))) {
      LockSupport.unpark(writer);
    }
    return pending.done();
  }

  private static <T> CompletableFuture<T> refuse(Pending<T> pending, String reason) {
    pending
        .done()
        .completeExceptionally(
            new LedgerException(
                pending.what() + " failed: " + reason, new IllegalStateException(reason)));
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
    boolean stop = false;
    while (!stop) {
      batch.clear();
      // Interrupted (nothing here does that): stop as close() does, writing what is queued.
      stop = !awaitFirst(batch) || !lingerForCompany(batch);
      state = State.BUSY;
      stop |= batch.remove(STOP);
      if (!batch.isEmpty()) {
        commit(batch);
      }
    }
    // Closed before the last look, so that a write offered after it is taken back by its caller.
    closed = true;
    List<Pending<?>> rest = new ArrayList<>();
    drain(rest, Integer.MAX_VALUE);
    rest.remove(STOP);
    if (!rest.isEmpty()) {
      commit(rest);
    }
  }

  /** Waits until {@code batch} holds the first writes; false if interrupted. */
  private boolean awaitFirst(List<Pending<?>> batch) {
    while (drain(batch, MAX_BATCH) == 0) {
      state = State.IDLE;
      // Looked at again after saying so: a write offered before was not told to wake the writer.
      if (queue.isEmpty()) {
        LockSupport.park(this);
      }
      if (Thread.interrupted()) {
        return false;
      }
    }
    return true;
  }

  /** Moves up to {@code max} queued writes to {@code batch}; how many it moved. */
  private int drain(List<Pending<?>> batch, int max) {
    int moved = 0;
    Pending<?> next;
    while (moved < max && (next = queue.poll()) != null) {
      batch.add(next);
      moved++;
    }
    queued.addAndGet(-moved);
    return moved;
  }

  /**
   * While {@code batch} holds only writes nobody waits for, waits for more until {@link #LINGER}
   * after it began or the batch is full; false if interrupted.
   */
  private boolean lingerForCompany(List<Pending<?>> batch) {
    long until = ticker.getAsLong() + LINGER.toNanos();
    int looked = 0;
    while (batch.size() < MAX_BATCH) {
      if (batch.subList(looked, batch.size()).stream().anyMatch(Pending::urgent)) {
        return true;
      }
      looked = batch.size();
      room = MAX_BATCH - batch.size();
      state = State.LINGERING;
      // Looked at again after saying so, as in awaitFirst.
      if (drain(batch, MAX_BATCH - batch.size()) > 0) {
        continue;
      }
      long left = until - ticker.getAsLong();
      if (left <= 0) {
        return true;
      }
      LockSupport.parkNanos(this, left);
      if (Thread.interrupted()) {
        return false;
      }
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
      queued.incrementAndGet();
      queue.offer(STOP);
      LockSupport.unpark(writer);
      writer.join(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
