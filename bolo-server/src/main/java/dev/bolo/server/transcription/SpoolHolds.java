package dev.bolo.server.transcription;

import dev.bolo.server.upload.SpoolBudget;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;

/**
 * What each of this instance's resumable uploads holds of the {@link SpoolBudget} ({@code
 * BOLO_SPOOL_MAX_BYTES}): each its whole length, from its creation until its bytes are deleted, so
 * that open uploads cannot fill the disk. An upload holds once and gives back once, however many
 * ways its end is reached (a termination, the sweep, its note's last holder closing it). Thread
 * safe.
 */
final class SpoolHolds {

  private final LongPredicate take;
  private final LongConsumer giveBack;
  private final ConcurrentHashMap<String, Long> held = new ConcurrentHashMap<>();

  /**
   * @param take holds that many bytes of the budget, or answers false and holds nothing
   * @param giveBack gives back what {@code take} held
   */
  SpoolHolds(LongPredicate take, LongConsumer giveBack) {
    this.take = Objects.requireNonNull(take, "take");
    this.giveBack = Objects.requireNonNull(giveBack, "giveBack");
  }

  /** Holds in the budget every spooled body shares, POSTs and resumable uploads alike. */
  static SpoolHolds in(SpoolBudget budget) {
    return new SpoolHolds(budget::tryHold, budget::release);
  }

  /**
   * Holds {@code bytes} for the upload {@code id}; an upload already holding keeps what it holds.
   *
   * @return false when that would pass the budget; nothing is held then
   */
  boolean hold(String id, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
    }
    boolean[] taken = {true};
    held.computeIfAbsent(
        id,
        key -> {
          taken[0] = take.test(bytes);
          return taken[0] ? bytes : null;
        });
    return taken[0];
  }

  /** Gives back what the upload {@code id} holds, if it holds anything. */
  void release(String id) {
    Long bytes = held.remove(id);
    if (bytes != null) {
      giveBack.accept(bytes);
    }
  }

  /** Whether the upload {@code id} holds part of the budget. */
  boolean holds(String id) {
    return held.containsKey(id);
  }
}
