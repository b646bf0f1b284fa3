package dev.bolo.server;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gateway's own threads: a virtual thread per piece of detached work (engine calls, lease
 * renewals' callbacks, resumable completions), counted so that a drain can wait for them, and one
 * platform thread each for lease renewals, ledger retries and the usage roll-up with the upload
 * sweep. Thread safe; the composition root owns the one instance.
 */
final class GatewayThreads implements AutoCloseable {

  private final ExecutorService detached = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicInteger running = new AtomicInteger();
  private final ScheduledExecutorService renewals = daemon("bolo-lease-renewal");
  private final ScheduledExecutorService ledgerRetries = daemon("bolo-ledger-retry");
  private final ScheduledExecutorService housekeeping = daemon("bolo-usage-rollup");

  private static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name(name).factory());
  }

  /** Runs each task on its own virtual thread, counted in {@link #running()} until it ends. */
  Executor countedWork() {
    return task -> {
      running.incrementAndGet();
      try {
        detached.execute(
            () -> {
              try {
                task.run();
              } finally {
                running.decrementAndGet();
              }
            });
      } catch (RuntimeException rejected) {
        running.decrementAndGet();
        throw rejected;
      }
    };
  }

  /** The counter of detached work still running, for the gauges. */
  AtomicInteger runningCounter() {
    return running;
  }

  /** Detached work still running. */
  int running() {
    return running.get();
  }

  ScheduledExecutorService renewals() {
    return renewals;
  }

  ScheduledExecutorService ledgerRetries() {
    return ledgerRetries;
  }

  /** The thread of the usage roll-up and the sweep of expired uploads. */
  ScheduledExecutorService housekeeping() {
    return housekeeping;
  }

  /**
   * Lets detached work finish within {@code wait}, then interrupts what is left.
   *
   * @throws InterruptedException when interrupted while waiting; the work is interrupted too
   */
  void finishDetachedWork(Duration wait) throws InterruptedException {
    detached.shutdown();
    try {
      if (!detached.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        detached.shutdownNow();
      }
    } catch (InterruptedException e) {
      detached.shutdownNow();
      throw e;
    }
  }

  /**
   * Interrupts a running roll-up, which stops after its current transaction, and waits up to {@code
   * wait} for it.
   *
   * @return false when it was still running after the wait
   */
  boolean stopHousekeeping(Duration wait) {
    housekeeping.shutdownNow();
    try {
      return housekeeping.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Stops every thread at once; for a gateway that failed to start, or after the others. */
  @Override
  public void close() {
    detached.shutdownNow();
    renewals.shutdownNow();
    ledgerRetries.shutdownNow();
    housekeeping.shutdownNow();
  }
}
