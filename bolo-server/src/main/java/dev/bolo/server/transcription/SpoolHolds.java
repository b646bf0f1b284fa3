package dev.bolo.server.transcription;

import dev.bolo.server.upload.SpoolBudget;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * What each of this instance's resumable uploads holds of the {@link SpoolBudget} ({@code
 * BOLO_SPOOL_MAX_BYTES}): each its whole length, from its creation until its bytes are deleted, so
 * that open uploads cannot fill the disk. An upload holds once and gives back once, however many
 * ways its end is reached (a termination, the sweep, its note's last holder closing it). The
 * uploads of one device hold at most {@code maxPerDeviceBytes} together, so that one token (perhaps
 * stolen) cannot hold the whole spool for a day. Thread safe: every method holds the lock.
 */
final class SpoolHolds {

  /** What a {@link #hold(String, String, long)} did. */
  enum Hold {
    HELD,
    /** The spool budget has no room for it now. */
    SPOOL_FULL,
    /** The device's uploads would hold more than a device may. */
    DEVICE_FULL
  }

  /** One upload's hold: its device (null: counted for none) and its bytes. */
  private record Held(@Nullable String device, long bytes) {}

  private final LongPredicate take;
  private final LongConsumer giveBack;
  private final long maxPerDeviceBytes;
  private final Map<String, Held> held = new HashMap<>();
  private final Map<String, Long> byDevice = new HashMap<>();

  /**
   * @param take holds that many bytes of the budget, or answers false and holds nothing
   * @param giveBack gives back what {@code take} held
   * @param maxPerDeviceBytes what one device's uploads may hold together
   */
  SpoolHolds(LongPredicate take, LongConsumer giveBack, long maxPerDeviceBytes) {
    this.take = Objects.requireNonNull(take, "take");
    this.giveBack = Objects.requireNonNull(giveBack, "giveBack");
    if (maxPerDeviceBytes < 1) {
      throw new IllegalArgumentException("maxPerDeviceBytes must be >= 1: " + maxPerDeviceBytes);
    }
    this.maxPerDeviceBytes = maxPerDeviceBytes;
  }

  /** Holds without a bound per device. */
  SpoolHolds(LongPredicate take, LongConsumer giveBack) {
    this(take, giveBack, Long.MAX_VALUE);
  }

  /**
   * Holds in the budget every spooled body shares, POSTs and resumable uploads alike, a device at
   * most {@link SpoolBudget#deviceShareBytes()} of it.
   */
  static SpoolHolds in(SpoolBudget budget) {
    return new SpoolHolds(budget::tryHold, budget::release, budget.deviceShareBytes());
  }

  /** What one device's uploads may hold together, and so the largest upload. */
  synchronized long maxPerDeviceBytes() {
    return maxPerDeviceBytes;
  }

  /**
   * Holds {@code bytes} for the upload {@code id}, counted for no device; an upload already holding
   * keeps what it holds.
   *
   * @return false when that would pass the budget; nothing is held then
   */
  boolean hold(String id, long bytes) {
    return hold(null, id, bytes) == Hold.HELD;
  }

  /**
   * Holds {@code bytes} for the upload {@code id} of {@code device}; an upload already holding
   * keeps what it holds.
   *
   * @return whether it holds now; nothing more is held when not
   */
  synchronized Hold hold(@Nullable String device, String id, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
    }
    if (held.containsKey(id)) {
      return Hold.HELD;
    }
    if (device != null && byDevice.getOrDefault(device, 0L) + bytes > maxPerDeviceBytes) {
      return Hold.DEVICE_FULL;
    }
    if (!take.test(bytes)) {
      return Hold.SPOOL_FULL;
    }
    held.put(id, new Held(device, bytes));
    if (device != null) {
      byDevice.merge(device, bytes, Long::sum);
    }
    return Hold.HELD;
  }

  /** Gives back what the upload {@code id} holds, if it holds anything. */
  synchronized void release(String id) {
    Held released = held.remove(id);
    if (released == null) {
      return;
    }
    String device = released.device();
    if (device != null) {
      byDevice.computeIfPresent(
          device, (name, bytes) -> bytes - released.bytes() <= 0 ? null : bytes - released.bytes());
    }
    giveBack.accept(released.bytes());
  }

  /** Whether the upload {@code id} holds part of the budget. */
  synchronized boolean holds(String id) {
    return held.containsKey(id);
  }

  /** What the uploads of {@code device} hold together. */
  synchronized long heldBy(String device) {
    return byDevice.getOrDefault(device, 0L);
  }
}
