package dev.bolo.server.http;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * Cumulative bucket counts of one or more latency histograms with the same bounds, merged, and
 * quantiles estimated from them as Prometheus's {@code histogram_quantile} does: linearly within
 * the bucket that holds the rank, and never above the largest recent value when one is known
 * (Micrometer's maximum decays to 0 after a quiet while). A rank beyond the last bound is answered
 * with that maximum, else the last bound: nothing more is known about it. Not thread safe; build
 * one per answer.
 */
final class LatencyHistogram {

  /** Upper bound in seconds → observations at or below it. */
  private final TreeMap<Double, Long> cumulative = new TreeMap<>();

  private long total;
  private double max;

  /** Adds a histogram's cumulative count at {@code upperBoundSeconds}. */
  void add(double upperBoundSeconds, long count) {
    cumulative.merge(upperBoundSeconds, count, Long::sum);
  }

  /** Adds a histogram's number of observations and its largest one. */
  void addTotal(long count, double maxSeconds) {
    total += count;
    max = Math.max(max, maxSeconds);
  }

  long total() {
    return total;
  }

  /** The estimated {@code q}-quantile in seconds; empty without observations. */
  OptionalDouble quantile(double q) {
    if (q < 0 || q > 1) {
      throw new IllegalArgumentException("q must be between 0 and 1: " + q);
    }
    if (total == 0) {
      return OptionalDouble.empty();
    }
    double rank = q * total;
    double lowerBound = 0;
    long below = 0;
    for (Map.Entry<Double, Long> bucket : cumulative.entrySet()) {
      long atOrBelow = bucket.getValue();
      if (atOrBelow >= rank && atOrBelow > below) {
        double share = (rank - below) / (atOrBelow - below);
        double estimate = lowerBound + (bucket.getKey() - lowerBound) * share;
        // A bucket's bound may be far beyond what was seen.
        return OptionalDouble.of(max > 0 ? Math.min(estimate, max) : estimate);
      }
      lowerBound = bucket.getKey();
      below = atOrBelow;
    }
    return OptionalDouble.of(max > 0 ? max : lowerBound);
  }
}
