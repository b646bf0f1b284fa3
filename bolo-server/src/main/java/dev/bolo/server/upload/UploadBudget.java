package dev.bolo.server.upload;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Admission control for upload bodies by bytes in flight: each body is charged its declared length
 * before any of it is read, and the charges of bodies being read at once stay within the budget.
 * Without it every upload is read at once, a hundred 20 MB bodies share two cores, and all of them
 * finish late together; with it the admitted ones run at full speed and the rest wait their turn.
 *
 * <p>The rules, in order:
 *
 * <ul>
 *   <li>A small body (up to {@code smallBytes}) is admitted at once and still counted: a note that
 *       stays in memory costs little, and a phone's short note must not queue behind long ones.
 *   <li>A body is charged at most {@link #MAX_CHARGE_BYTES}: however long a note is, one thread
 *       reads it, on one core at a time, so a 500 MB note sent over a phone's link for minutes
 *       leaves the rest of a several-core budget to the notes behind it.
 *   <li>A larger body is admitted when it fits in what is left, or when nothing else is in flight
 *       (so a body larger than the whole budget still gets its turn, alone).
 *   <li>Larger bodies that do not fit wait in arrival order (FIFO): a later, smaller body never
 *       overtakes a waiting one, so none starves.
 *   <li>A body that has not been admitted within the wait bound is refused; the caller answers 503
 *       with {@code Retry-After} before reading it.
 * </ul>
 *
 * <p>Thread safe. Waiting uses a lock and conditions, which virtual threads park on without pinning
 * their carrier.
 */
final class UploadBudget {

  /**
   * The most one body is charged: one core's share of the default budget (64 MiB per core, see
   * {@code BOLO_UPLOAD_BUDGET_BYTES}).
   */
  static final long MAX_CHARGE_BYTES = 64L * 1024 * 1024;

  private final long capacityBytes;
  private final long smallBytes;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
  private long inUseBytes;

  /**
   * @param capacityBytes declared bytes of bodies read at once
   * @param smallBytes bodies up to this size are admitted at once
   */
  UploadBudget(long capacityBytes, long smallBytes) {
    if (capacityBytes <= 0 || smallBytes < 0) {
      throw new IllegalArgumentException(
          "capacityBytes must be positive and smallBytes not negative: "
              + capacityBytes
              + ", "
              + smallBytes);
    }
    this.capacityBytes = capacityBytes;
    this.smallBytes = smallBytes;
  }

  /** The budget in bytes. */
  long capacityBytes() {
    return capacityBytes;
  }

  /** Declared bytes of the bodies admitted and not yet released. */
  long inUseBytes() {
    lock.lock();
    try {
      return inUseBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Bodies waiting for their turn now. */
  int waiting() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits a body of {@code declaredBytes}, waiting at most {@code maxWait} for its turn.
   *
   * @return the admission, to be closed once the body has been read (on every path), or null when
   *     the body was not admitted in time (or the thread was interrupted, whose flag stays set)
   */
  @Nullable Admission admit(long declaredBytes, Duration maxWait) {
    if (declaredBytes < 0) {
      throw new IllegalArgumentException("declaredBytes must not be negative: " + declaredBytes);
    }
    // A body larger than the whole budget is charged the whole budget: it runs alone.
    long charge = Math.min(declaredBytes, Math.min(capacityBytes, MAX_CHARGE_BYTES));
    lock.lock();
    try {
      if (declaredBytes <= smallBytes || (queue.isEmpty() && fits(charge))) {
        inUseBytes += charge;
        return new Admission(charge);
      }
      Waiter waiter = new Waiter(charge, lock.newCondition());
      queue.addLast(waiter);
      long left = maxWait.toNanos();
      try {
        while (!waiter.admitted && left > 0) {
          left = waiter.turn.awaitNanos(left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (waiter.admitted) {
        return new Admission(charge);
      }
      queue.remove(waiter);
      // Leaving from the head may let the next one in.
      admitWaiters();
      return null;
    } finally {
      lock.unlock();
    }
  }

  private boolean fits(long charge) {
    return inUseBytes == 0 || inUseBytes + charge <= capacityBytes;
  }

  /** Admits waiters from the head of the queue while they fit. Holds the lock. */
  private void admitWaiters() {
    Waiter head;
    while ((head = queue.peekFirst()) != null && fits(head.charge)) {
      queue.removeFirst();
      inUseBytes += head.charge;
      head.admitted = true;
      head.turn.signal();
    }
  }

  private void release(long charge) {
    lock.lock();
    try {
      inUseBytes -= charge;
      admitWaiters();
    } finally {
      lock.unlock();
    }
  }

  /** One waiting body; guarded by the budget's lock. */
  private static final class Waiter {
    final long charge;
    final Condition turn;
    boolean admitted;

    Waiter(long charge, Condition turn) {
      this.charge = charge;
      this.turn = turn;
    }
  }

  /** A body's share of the budget; closing gives it back (once). Not thread safe. */
  final class Admission implements AutoCloseable {
    private final long charge;
    private boolean released;

    private Admission(long charge) {
      this.charge = charge;
    }

    @Override
    public void close() {
      if (!released) {
        released = true;
        release(charge);
      }
    }
  }

  @Override
  public String toString() {
    return "UploadBudget[capacity=" + capacityBytes + ", small=" + smallBytes + "]";
  }
}
