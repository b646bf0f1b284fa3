package dev.bolo.server.ledger;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges that must land even when the ledger cannot be written right now (PROTOCOL.md rule 9): a
 * transcript the engine delivered is answered at once, and its charge is retried in the background
 * until the ledger takes it. The ledger charges a piece of work at most once per device, so a retry
 * that reaches it twice still charges once.
 *
 * <p>Pending charges live in this process's memory, bounded by {@code capacity}: a process killed
 * while its database is down loses them, which under-charges rather than double-charges. Thread
 * safe.
 */
public final class ChargeOutbox {

  private static final Logger log = LoggerFactory.getLogger(ChargeOutbox.class);

  /** First retry soon (a blip), then back off to this, so a long outage costs little. */
  private static final Duration FIRST_RETRY = Duration.ofMillis(500);

  private static final Duration MAX_RETRY = Duration.ofSeconds(10);

  /** A charge waiting for the ledger. */
  private record Pending(Reservation.Granted hold, long audioMillis) {}

  private final Ledger ledger;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier ticker;
  private final int capacity;
  private final Deque<Pending> pending = new ArrayDeque<>();
  private Duration nextRetry = FIRST_RETRY;
  private boolean retryScheduled;

  /**
   * @param ledger where charges go
   * @param scheduler runs the retries
   * @param ticker monotonic nanoseconds, for {@link #drain}'s deadline
   * @param capacity charges kept while the ledger is away; beyond it the oldest is dropped (logged)
   */
  public ChargeOutbox(
      Ledger ledger, ScheduledExecutorService scheduler, LongSupplier ticker, int capacity) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    this.capacity = capacity;
  }

  /**
   * Charges the hold's work now, or keeps the charge for a retry when the ledger fails. Never
   * throws for a ledger failure.
   */
  public void charge(Reservation.Granted hold, long audioMillis) {
    // Behind earlier charges still waiting, keep the order: they go first on the next retry.
    synchronized (this) {
      if (!pending.isEmpty()) {
        enqueue(new Pending(hold, audioMillis));
        return;
      }
    }
    try {
      ledger.commit(hold, audioMillis);
    } catch (LedgerException e) {
      log.warn(
          "could not write the charge of work {} for device {} ({}); retrying in the background",
          hold.workKey(),
          hold.device(),
          e.getMessage());
      synchronized (this) {
        enqueue(new Pending(hold, audioMillis));
      }
    }
  }

  /** Charges waiting for the ledger. */
  public synchronized int pending() {
    return pending.size();
  }

  /**
   * Tries every waiting charge until none is left or {@code timeout} has passed; for shutdown.
   *
   * @return true when every charge landed
   */
  public boolean drain(Duration timeout) throws InterruptedException {
    long deadline = ticker.getAsLong() + timeout.toNanos();
    while (true) {
      if (flush()) {
        return true;
      }
      long left = deadline - ticker.getAsLong();
      if (left <= 0) {
        log.error("{} charges could not be written before shutdown", pending());
        return false;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(left, FIRST_RETRY.toNanos()));
    }
  }

  private void enqueue(Pending charge) {
    if (pending.size() >= capacity) {
      Pending dropped = pending.removeFirst();
      log.error(
          "charge outbox full ({}); dropped the charge of work {} for device {}",
          capacity,
          dropped.hold().workKey(),
          dropped.hold().device());
    }
    pending.addLast(charge);
    scheduleRetry();
  }

  private void scheduleRetry() {
    if (retryScheduled || scheduler.isShutdown()) {
      return;
    }
    retryScheduled = true;
    scheduler.schedule(this::retry, nextRetry.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void retry() {
    synchronized (this) {
      retryScheduled = false;
    }
    boolean empty = flush();
    synchronized (this) {
      if (empty) {
        nextRetry = FIRST_RETRY;
      } else {
        Duration doubled = nextRetry.multipliedBy(2);
        nextRetry = doubled.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : doubled;
        scheduleRetry();
      }
    }
  }

  /** Writes waiting charges in order until one fails; true when none is left. */
  private boolean flush() {
    while (true) {
      Pending next;
      synchronized (this) {
        next = pending.peekFirst();
      }
      if (next == null) {
        return true;
      }
      try {
        ledger.commit(next.hold(), next.audioMillis());
      } catch (LedgerException e) {
        return false;
      }
      synchronized (this) {
        pending.remove(next);
      }
      log.info(
          "wrote the delayed charge of work {} for device {}",
          next.hold().workKey(),
          next.hold().device());
    }
  }
}
