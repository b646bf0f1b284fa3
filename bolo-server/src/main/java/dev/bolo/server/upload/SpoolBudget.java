package dev.bolo.server.upload;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The spool's byte budget ({@code BOLO_SPOOL_MAX_BYTES}): the bytes uploads may hold on the spool's
 * disk at once. A note spooled while it streams in holds what it wrote until it is released; a
 * resumable upload holds its whole length from its creation to its end, so that open uploads cannot
 * fill the disk. A hold that would pass the budget is refused and holds nothing.
 *
 * <p>Thread safe: one counter, updated atomically.
 */
public final class SpoolBudget {

  private final long maxBytes;
  private final AtomicLong inUse = new AtomicLong();

  /**
   * @param maxBytes bytes held at once
   */
  public SpoolBudget(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** A budget nothing passes, for readers with no spool limit of their own. */
  public static SpoolBudget unbounded() {
    return new SpoolBudget(Long.MAX_VALUE);
  }

  /**
   * Holds {@code bytes} of the budget.
   *
   * @return false when that would pass the budget; nothing is held then
   */
  public boolean tryHold(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must not be negative: " + bytes);
    }
    // Added first and taken back on failure: two holds racing for the last room never both pass.
    if (inUse.addAndGet(bytes) > maxBytes) {
      inUse.addAndGet(-bytes);
      return false;
    }
    return true;
  }

  /** Gives back {@code bytes} that {@link #tryHold} held. */
  public void release(long bytes) {
    inUse.addAndGet(-bytes);
  }

  /** Bytes held now, for metrics and tests. */
  public long inUseBytes() {
    return inUse.get();
  }

  /** The budget in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  /**
   * What one device's resumable uploads may hold together, and so the largest resumable upload: a
   * quarter of the budget (at least a byte). An unfinished upload holds its whole length for up to
   * {@code BOLO_UPLOAD_TTL}; a quarter still takes hours of audio (1 GiB of the default 4 GiB),
   * while one token, perhaps stolen, cannot hold the whole spool for a day.
   */
  public long deviceShareBytes() {
    return deviceShareOf(maxBytes);
  }

  /** {@link #deviceShareBytes()} of a budget of {@code maxBytes}. */
  public static long deviceShareOf(long maxBytes) {
    return Math.max(1, maxBytes / 4);
  }

  @Override
  public String toString() {
    return "SpoolBudget[" + inUse.get() + " of " + maxBytes + " bytes held]";
  }
}
