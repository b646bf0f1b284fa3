package dev.bolo.server.http;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts the transcription requests being served, so a graceful drain can wait for them, and turns
 * new ones away once the drain has begun. Thread safe.
 */
public final class InFlightRequests {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private int count;
  private boolean closed;

  /** Admits one request; false once draining has begun (answer 503, the phone resends). */
  boolean tryEnter() {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      count++;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** One admitted request has been answered (or its client is gone). */
  void exit() {
    lock.lock();
    try {
      if (--count == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Admits no more requests. */
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
  }

  /** Whether new requests are refused. */
  public boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Requests being served now. */
  public int count() {
    lock.lock();
    try {
      return count;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until no request is being served or {@code timeout} has passed.
   *
   * @return true when none is left
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long left = timeout.toNanos();
    lock.lock();
    try {
      while (count > 0) {
        if (left <= 0) {
          return false;
        }
        left = idle.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
