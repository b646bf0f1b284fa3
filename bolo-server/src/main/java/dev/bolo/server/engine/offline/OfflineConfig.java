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
 */
public record OfflineConfig(int recognizers, int queueCapacity, Duration retryAfter) {

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
  }

  /**
   * One recogniser per core, two waiting notes per recogniser (a short queue: a note waits at most
   * about two notes' worth of work), Retry-After 5 s.
   */
  public static OfflineConfig defaults() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new OfflineConfig(cores, 2 * cores, Duration.ofSeconds(5));
  }
}
