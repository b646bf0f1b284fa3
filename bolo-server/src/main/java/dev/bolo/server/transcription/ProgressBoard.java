package dev.bolo.server.transcription;

import dev.bolo.server.engine.NoteProgress;
import dev.bolo.server.work.WorkKey;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How far the work running on this instance has got, by key: what a lookup's 202 tells a phone that
 * asks while its long note is recognised ({@code seconds_done} of {@code seconds_total}). A lookup
 * answered by another instance than the one running the work says only that it runs. Thread safe;
 * an entry lives while its work runs.
 */
final class ProgressBoard {

  private final Map<WorkKey, WorkProgress> running = new ConcurrentHashMap<>();

  /**
   * Starts reporting the work of {@code key}, a note of {@code totalMillis}. A note of no counted
   * length has no share done to report.
   */
  NoteProgress track(WorkKey key, long totalMillis) {
    if (totalMillis < 1) {
      return NoteProgress.none();
    }
    running.put(key, new WorkProgress(0, totalMillis));
    return millis ->
        running.computeIfPresent(
            key,
            (k, now) ->
                new WorkProgress(Math.clamp(millis, 0, now.totalMillis()), now.totalMillis()));
  }

  /** The work of {@code key} has ended. */
  void forget(WorkKey key) {
    running.remove(key);
  }

  /** How far the work of {@code key} has got, when it runs here. */
  Optional<WorkProgress> of(WorkKey key) {
    return Optional.ofNullable(running.get(key));
  }
}
