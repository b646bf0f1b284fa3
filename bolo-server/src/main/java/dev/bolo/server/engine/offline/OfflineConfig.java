package dev.bolo.server.engine.offline;

import java.time.Duration;
import java.util.Objects;

/**
 * How the offline engine runs.
 *
 * @param recognizers pieces of notes recognised at once, each on its own platform thread with one
 *     ONNX Runtime thread: one per core keeps every core busy without two calls contending for one
 *     (a piece's model calls are sequential, so more intra-op threads per call only add hand-offs)
 * @param queueCapacity notes that may wait for a free recogniser; beyond that the engine answers
 *     {@code Unavailable} at once rather than letting waits grow without bound
 * @param retryAfter what busy answers suggest to the client
 * @param longestNoteSeconds the longest note taken ({@code BOLO_OFFLINE_MAX_SECONDS}); a longer one
 *     is refused before any work
 */
public record OfflineConfig(
    int recognizers, int queueCapacity, Duration retryAfter, long longestNoteSeconds) {

  /**
   * The longest note by default: an hour, cut at its pauses and recognised a piece at a time, so
   * its memory does not grow with its length.
   */
  public static final long LONGEST_NOTE_SECONDS = 3600;

  /** An engine taking notes up to {@link #LONGEST_NOTE_SECONDS}. */
  public OfflineConfig(int recognizers, int queueCapacity, Duration retryAfter) {
    this(recognizers, queueCapacity, retryAfter, LONGEST_NOTE_SECONDS);
  }

  public OfflineConfig {
    Objects.requireNonNull(retryAfter, "retryAfter");
    if (recognizers < 1) {
      throw new IllegalArgumentException("recognizers must be >= 1: " + recognizers);
    }
    if (queueCapacity < 0) {
      throw new IllegalArgumentException("queueCapacity must be >= 0: " + queueCapacity);
    }
    if (retryAfter.isNegative() || retryAfter.isZero()) {
      throw new IllegalArgumentException("retryAfter must be positive: " + retryAfter);
    }
    if (longestNoteSeconds < 1) {
      throw new IllegalArgumentException("longestNoteSeconds must be >= 1: " + longestNoteSeconds);
    }
  }

  /**
   * One recogniser per core, two waiting notes per recogniser (a short queue: a note waits at most
   * about two notes' worth of work), Retry-After 5 s.
   */
  public static OfflineConfig defaults() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new OfflineConfig(cores, 2 * cores, Duration.ofSeconds(5));
  }

  /** The same configuration taking notes up to {@code seconds}. */
  public OfflineConfig withLongestNoteSeconds(long seconds) {
    return new OfflineConfig(recognizers, queueCapacity, retryAfter, seconds);
  }
}
