package dev.bolo.server.engine;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Bounds the provider answer bytes the gateway holds at once, across all notes: each answer may be
 * as large as {@code BOLO_MAX_TRANSCRIPT_BYTES}, and while it is read and parsed the heap holds it
 * several times over (the bytes, their text, the parsed transcript), so a few large answers at once
 * would exhaust a small heap. The rules:
 *
 * <ul>
 *   <li>An answer is charged as it arrives: its whole {@code Content-Length} when it declares one,
 *       else each chunk as it is read. It is released when its {@link Hold} closes: after the
 *       engine has parsed it.
 *   <li>A charge is granted when it fits, or when no other answer holds anything (so an answer
 *       larger than the whole budget is still read, alone).
 *   <li>An answer that holds nothing yet waits for room, at most {@code wait} and never past its
 *       exchange's deadline. One that already holds bytes and needs more than there is fails at
 *       once: waiting while holding could leave two growing answers each waiting for the other.
 *   <li>A charge that cannot be granted throws {@link Exhausted}; the engine answers 503 with
 *       {@code Retry-After}, a server condition the phone resends after.
 * </ul>
 *
 * <p>Thread safe; waiting parks on a condition, which does not pin a virtual thread's carrier, and
 * its deadlines are read on the budget's ticker, which must pass in real time as the parking does.
 */
public final class AnswerBudget {

  /** What a phone is told to wait before it resends a note refused for want of room. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(2);

  private final long capacityBytes;
  private final Duration wait;
  private final LongSupplier ticker;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private long inUseBytes;
  private int waiting;

  /**
   * @param wait how long an answer waits for room
   * @param ticker elapsed nanoseconds for that wait and the exchanges' deadlines
   */
  public AnswerBudget(long capacityBytes, Duration wait, LongSupplier ticker) {
    if (capacityBytes < 1 || wait.isNegative()) {
      throw new IllegalArgumentException(
          "capacityBytes must be positive and wait not negative: " + capacityBytes + ", " + wait);
    }
    this.capacityBytes = capacityBytes;
    this.wait = wait;
    this.ticker = ticker;
  }

  /** How long an answer waits for room before it is refused. */
  public static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * The default budget: an eighth of the heap, so the answers held at once, with their text and
   * parsed form, stay well inside it. {@code -Xmx256m}: 32 MiB.
   */
  public static long defaultBytes(long maxHeapBytes) {
    return Math.max(1024, maxHeapBytes / 8);
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Answers waiting for room now. */
  public int waitingAnswers() {
    lock.lock();
    try {
      return waiting;
    } finally {
      lock.unlock();
    }
  }

  /** Answer bytes held now. */
  public long inUseBytes() {
    lock.lock();
    try {
      return inUseBytes;
    } finally {
      lock.unlock();
    }
  }

  private void charge(Hold hold, long bytes) throws Exhausted {
    lock.lock();
    try {
      if (hold.budget != null && hold.budget != this) {
        throw new IllegalStateException("a hold charges one budget");
      }
      hold.budget = this;
      long deadline = Math.min(ticker.getAsLong() + wait.toNanos(), hold.deadline);
      while (inUseBytes + bytes > capacityBytes && inUseBytes - hold.held > 0) {
        long left = deadline - ticker.getAsLong();
        if (hold.held > 0 || left <= 0) {
          throw new Exhausted(capacityBytes);
        }
        waiting++;
        try {
          released.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new Exhausted(capacityBytes);
        } finally {
          waiting--;
        }
      }
      inUseBytes += bytes;
      hold.held += bytes;
    } finally {
      lock.unlock();
    }
  }

  private void release(Hold hold) {
    lock.lock();
    try {
      inUseBytes -= hold.held;
      hold.held = 0;
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The answer bytes one provider exchange holds, released on {@link #close}. An engine that parses
   * the answer after reading it tags its request with a hold ({@code Request.tag(Hold.class, …)})
   * and closes it after parsing; without one, the answer is released once its body is closed.
   */
  public static final class Hold implements AutoCloseable {
    private volatile @Nullable AnswerBudget budget;
    // Guarded by the budget's lock.
    private long held;

    /** How long the exchange may take, or null when only the budget's wait bounds a wait. */
    private final @Nullable Duration timeout;

    /**
     * When the exchange's own deadline passes, on the budget's ticker, once {@link #begin} has
     * stamped it; no wait outlasts it.
     */
    private volatile long deadline = Long.MAX_VALUE;

    /** A hold whose waits are bounded by the budget's wait only. */
    public Hold() {
      this.timeout = null;
    }

    /**
     * A hold for an exchange that must end within {@code timeout}: no wait for room outlasts it,
     * counted from when the exchange begins ({@link AnswerLimit} marks it).
     */
    public Hold(Duration timeout) {
      this.timeout = timeout;
    }

    /** Marks the start of the exchange on {@code budget}'s ticker: its deadline counts from now. */
    void begin(AnswerBudget budget) {
      if (timeout != null) {
        deadline = budget.ticker.getAsLong() + timeout.toNanos();
      }
    }

    /** Charges {@code bytes} of the answer to {@code budget}; may wait for room. */
    void charge(AnswerBudget budget, long bytes) throws Exhausted {
      budget.charge(this, bytes);
    }

    /** Bytes this hold has been granted and not released. */
    public long heldBytes() {
      AnswerBudget charged = budget;
      if (charged == null) {
        return 0;
      }
      charged.lock.lock();
      try {
        return held;
      } finally {
        charged.lock.unlock();
      }
    }

    @Override
    public void close() {
      AnswerBudget charged = budget;
      if (charged != null) {
        charged.release(this);
      }
    }
  }

  /** No room for the answer: too many large provider answers are held at once. */
  public static final class Exhausted extends IOException {
    private static final long serialVersionUID = 1L;

    Exhausted(long capacityBytes) {
      super(
          "the gateway is holding "
              + capacityBytes
              + " bytes of other provider answers; this one must wait");
    }
  }
}
