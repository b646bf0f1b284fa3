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

  /**
   * How far one piece of work has got.
   *
   * @param doneMillis the note is done up to here
   * @param totalMillis the note's length as the gateway counted it
   */
  record Progress(long doneMillis, long totalMillis) {}

  private final Map<WorkKey, Progress> running = new ConcurrentHashMap<>();

  /** Starts reporting the work of {@code key}, a note of {@code totalMillis}. */
  NoteProgress track(WorkKey key, long totalMillis) {
    running.put(key, new Progress(0, totalMillis));
    return millis ->
        running.computeIfPresent(
            key, (k, now) -> new Progress(Math.min(millis, now.totalMillis()), now.totalMillis()));
  }

  /** The work of {@code key} has ended. */
  void forget(WorkKey key) {
    running.remove(key);
  }

  /** How far the work of {@code key} has got, when it runs here. */
  Optional<Progress> of(WorkKey key) {
    return Optional.ofNullable(running.get(key));
  }
}
