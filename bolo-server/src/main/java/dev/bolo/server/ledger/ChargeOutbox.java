package dev.bolo.server.ledger;

import dev.bolo.server.time.Sleeper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges that must land even when the ledger cannot be written right now (PROTOCOL.md rule 9): a
 * transcript the engine delivered is answered at once, and its charge is retried in the background
 * until the ledger takes it. The ledger charges a piece of work at most once per device, so a
 * charge that reaches it twice (a retry, a replay after a restart) still charges once.
 *
 * <p>A charge that has to wait is first written to a journal file and forced to disk, so a process
 * killed while its database is away still owes it: the next process on the same instance slot
 * replays the journal ({@link #replay}). Bounded by {@code capacity}; beyond it the oldest waiting
 * charge is dropped and logged. Thread safe.
 */
public final class ChargeOutbox {

  private static final Logger log = LoggerFactory.getLogger(ChargeOutbox.class);

  /** First retry soon (a blip), then back off to this, so a long outage costs little. */
  private static final Duration FIRST_RETRY = Duration.ofMillis(500);

  private static final Duration MAX_RETRY = Duration.ofSeconds(10);

  /** A charge the ledger refuses for a reason other than being unreachable is tried this often. */
  private static final int MAX_ATTEMPTS_WHEN_REFUSED = 5;

  /** A charge waiting for the ledger. */
  private record Pending(Reservation.Granted hold, long audioMillis) {
    String line() {
      return String.join(
              "\t",
              hold.id(),
              hold.device(),
              hold.workKey(),
              Long.toString(hold.audioMillis()),
              Long.toString(audioMillis))
          + "\n";
    }

    static @Nullable Pending parse(String line) {
      String[] fields = line.split("\t", -1);
      if (fields.length != 5) {
        return null;
      }
      try {
        return new Pending(
            new Reservation.Granted(fields[0], fields[1], fields[2], Long.parseLong(fields[3])),
            Long.parseLong(fields[4]));
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }

  private final Ledger ledger;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier ticker;
  private final Sleeper sleeper;
  private final int capacity;
  private final @Nullable Path journal;
  private final Deque<Pending> pending = new ArrayDeque<>();
  private final java.util.Map<Pending, Integer> refusals = new java.util.HashMap<>();
  private final Object flushing = new Object();
  private Duration nextRetry = FIRST_RETRY;
  private boolean retryScheduled;

  /**
   * @param ledger where charges go
   * @param scheduler runs the retries
   * @param ticker monotonic nanoseconds, for {@link #drain}'s deadline
   * @param sleeper the pause between {@link #drain}'s attempts
   * @param capacity charges kept while the ledger is away; beyond it the oldest is dropped (logged)
   * @param journal where waiting charges are kept across a crash; null keeps them in memory only
   */
  public ChargeOutbox(
      Ledger ledger,
      ScheduledExecutorService scheduler,
      LongSupplier ticker,
      Sleeper sleeper,
      int capacity,
      @Nullable Path journal) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    this.capacity = capacity;
    this.journal = journal;
  }

  /**
   * Takes back the charges an earlier process on this journal still owed, and tries them in the
   * background.
   *
   * @return how many were owed
   */
  public int replay() {
    if (journal == null || !Files.exists(journal)) {
      return 0;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
    } catch (IOException e) {
      log.error("cannot read the charge journal {}: {}", journal, e.toString());
      return 0;
    }
    int owed = 0;
    synchronized (this) {
      for (String line : lines) {
        Pending charge = Pending.parse(line);
        if (charge != null && !pending.contains(charge)) {
          pending.addLast(charge);
          owed++;
        }
      }
      if (owed > 0) {
        log.warn("{} charges owed by this instance's previous run; writing them now", owed);
        scheduleRetry();
      }
    }
    return owed;
  }

  /**
   * Charges the hold's work now (or with the ledger's next batch, see {@link Ledger#commitSoon}),
   * or keeps the charge for a retry when the ledger fails. Never throws.
   */
  public void charge(Reservation.Granted hold, long audioMillis) {
    Pending charge = new Pending(hold, audioMillis);
    // Behind earlier charges still waiting, keep the order: they go first on the next retry.
    synchronized (this) {
      if (!pending.isEmpty()) {
        enqueue(charge);
        return;
      }
    }
    CompletionStage<Charge> written;
    try {
      written = ledger.commitSoon(hold, audioMillis);
    } catch (RuntimeException e) {
      written = CompletableFuture.failedFuture(e);
    }
    written.whenComplete(
        (ignored, failure) -> {
          if (failure != null) {
            keepForRetry(charge, failure);
          }
        });
  }

  private void keepForRetry(Pending charge, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    log.warn(
        "could not write the charge of work {} for device {} ({}); retrying in the background",
        charge.hold().workKey(),
        charge.hold().device(),
        cause.getMessage());
    synchronized (this) {
      enqueue(charge);
    }
  }

  /** Charges waiting for the ledger. */
  public synchronized int pending() {
    return pending.size();
  }

  /**
   * Tries every waiting charge until none is left or {@code timeout} has passed; for shutdown. What
   * is still waiting then stays in the journal for the next process.
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
        log.error(
            "{} charges could not be written before shutdown; kept for the next start", pending());
        return false;
      }
      sleeper.sleep(Duration.ofNanos(Math.min(left, FIRST_RETRY.toNanos())));
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
      rewriteJournal();
    }
    pending.addLast(charge);
    appendToJournal(charge);
    scheduleRetry();
  }

  private void appendToJournal(Pending charge) {
    if (journal == null) {
      return;
    }
    try (FileChannel out =
        FileChannel.open(
            journal,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
      out.write(ByteBuffer.wrap(charge.line().getBytes(StandardCharsets.UTF_8)));
      out.force(true);
    } catch (IOException e) {
      log.error("cannot journal the charge of work {}: {}", charge.hold().workKey(), e.toString());
    }
  }

  /** Keeps the journal equal to what is still waiting; called with the lock held. */
  private void rewriteJournal() {
    if (journal == null) {
      return;
    }
    try {
      if (pending.isEmpty()) {
        Files.deleteIfExists(journal);
        return;
      }
      StringBuilder text = new StringBuilder();
      for (Pending charge : pending) {
        text.append(charge.line());
      }
      Path temp = journal.resolveSibling(journal.getFileName() + ".tmp");
      try (FileChannel out =
          FileChannel.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        out.write(ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
        out.force(true);
      }
      Files.move(temp, journal, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.error("cannot rewrite the charge journal {}: {}", journal, e.toString());
    }
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

  /**
   * Writes waiting charges in order until the ledger is unreachable; true when none is left. One
   * flush at a time (a scheduled retry and a drain may overlap), so no charge is sent twice at
   * once.
   */
  private boolean flush() {
    synchronized (flushing) {
      return flushInOrder();
    }
  }

  private boolean flushInOrder() {
    List<Pending> landed = new ArrayList<>();
    try {
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
          landed.add(next);
          log.info(
              "wrote the delayed charge of work {} for device {}",
              next.hold().workKey(),
              next.hold().device());
        } catch (LedgerException e) {
          // Unreachable: try again later, in order.
          return false;
        } catch (RuntimeException e) {
          // Refused for good (a device deleted meanwhile, a bug): never block the others on it.
          if (refusedTooOften(next)) {
            log.error(
                "dropping the charge of work {} for device {} after {} refusals: {}",
                next.hold().workKey(),
                next.hold().device(),
                MAX_ATTEMPTS_WHEN_REFUSED,
                e.toString());
            landed.add(next);
          } else {
            synchronized (this) {
              pending.remove(next);
              pending.addLast(next);
            }
            return false;
          }
        }
        synchronized (this) {
          pending.remove(next);
        }
      }
    } finally {
      if (!landed.isEmpty()) {
        synchronized (this) {
          landed.forEach(refusals::remove);
          rewriteJournal();
        }
      }
    }
  }

  private synchronized boolean refusedTooOften(Pending charge) {
    return refusals.merge(charge, 1, Integer::sum) >= MAX_ATTEMPTS_WHEN_REFUSED;
  }
}
