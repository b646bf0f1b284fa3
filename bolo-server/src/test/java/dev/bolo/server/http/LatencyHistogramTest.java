package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Percentiles from cumulative bucket counts, as Prometheus's histogram_quantile estimates them. */
class LatencyHistogramTest {

  @Test
  void withoutObservationsThereIsNoPercentile() {
    assertThat(new LatencyHistogram().quantile(0.5)).isEmpty();
  }

  @Test
  void aPercentileIsInterpolatedWithinTheBucketHoldingItsRank() {
    LatencyHistogram histogram = new LatencyHistogram();
    // 10 calls: 4 at most 1 s, 8 at most 2 s, all 10 at most 5 s.
    histogram.add(1.0, 4);
    histogram.add(2.0, 8);
    histogram.add(5.0, 10);
    histogram.addTotal(10, 0);

    assertThat(histogram.quantile(0.5).getAsDouble()).isCloseTo(1.25, within(1e-9));
    assertThat(histogram.quantile(0.9).getAsDouble()).isCloseTo(3.5, within(1e-9));
    assertThat(histogram.quantile(0.2).getAsDouble()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void histogramsWithTheSameBoundsAddUpAndTheLargestCallCapsTheEstimate() {
    LatencyHistogram histogram = new LatencyHistogram();
    histogram.add(0.25, 0);
    histogram.add(0.5, 1);
    histogram.addTotal(1, 0.3);
    histogram.add(0.25, 0);
    histogram.add(0.5, 1);
    histogram.addTotal(1, 0.31);

    assertThat(histogram.total()).isEqualTo(2);
    // Interpolation alone would say 0.5 s; no call took more than 0.31 s.
    assertThat(histogram.quantile(0.99).getAsDouble()).isCloseTo(0.31, within(1e-9));
  }

  @Test
  void aRankBeyondTheLastBoundIsTheLargestCallOrElseTheLastBound() {
    LatencyHistogram seen = new LatencyHistogram();
    seen.add(1.0, 1);
    seen.addTotal(2, 42.0);
    LatencyHistogram decayed = new LatencyHistogram();
    decayed.add(1.0, 1);
    decayed.addTotal(2, 0);

    assertThat(seen.quantile(0.99).getAsDouble()).isEqualTo(42.0);
    assertThat(decayed.quantile(0.99).getAsDouble()).isEqualTo(1.0);
  }
}
