package dev.bolo.server.upload;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Buffers kept for reuse, at most a fixed number; when none is kept a new one is made, and one
 * given back beyond the bound is left to the collector. The pool hands out what it was given as it
 * is: a holder uses a buffer only up to what it wrote there itself. Thread safe.
 */
final class BoundedPool<T> {

  private final ConcurrentLinkedQueue<T> kept = new ConcurrentLinkedQueue<>();
  private final AtomicInteger count = new AtomicInteger();
  private final int max;
  private final Supplier<T> fresh;

  BoundedPool(int max, Supplier<T> fresh) {
    this.max = max;
    this.fresh = fresh;
  }

  /** A kept buffer, or a fresh one; the caller's until given back. */
  T take() {
    T buffer = kept.poll();
    if (buffer == null) {
      return fresh.get();
    }
    count.decrementAndGet();
    return buffer;
  }

  /** Keeps {@code buffer} for the next taker; the caller no longer touches it. */
  void give(T buffer) {
    if (count.incrementAndGet() <= max) {
      kept.offer(buffer);
    } else {
      count.decrementAndGet();
    }
  }
}
