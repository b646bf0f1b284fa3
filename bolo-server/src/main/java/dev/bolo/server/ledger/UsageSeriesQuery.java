package dev.bolo.server.ledger;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Usage over time: {@code buckets} consecutive intervals of {@code width}, the first starting at
 * {@code from}.
 *
 * @param device only this device; null for all
 * @param from the start of the first bucket
 * @param width each bucket's length, at least a minute
 * @param buckets how many, 1 to {@link #MAX_BUCKETS}
 */
public record UsageSeriesQuery(@Nullable String device, Instant from, Duration width, int buckets) {

  /** A chart has a point per bucket: more than this is not a chart anyone reads. */
  public static final int MAX_BUCKETS = 1_000;

  public UsageSeriesQuery {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(width, "width");
    if (width.compareTo(Duration.ofMinutes(1)) < 0) {
      throw new IllegalArgumentException("bucket width must be at least a minute: " + width);
    }
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "buckets must be between 1 and " + MAX_BUCKETS + ": " + buckets);
    }
  }

  /** The end of the last bucket, exclusive. */
  public Instant to() {
    return from.plus(width.multipliedBy(buckets));
  }
}
