package dev.bolo.server.ledger;

import java.util.List;

/**
 * Summaries of the usage log: what {@code ./bolo usage} prints and the operator dashboard charts.
 * Thread safe.
 */
public interface UsageReport {

  /** One summary per device that made a request in the query's range, by device name. */
  List<DeviceUsage> usage(UsageQuery query);

  /**
   * Usage per interval, exactly {@code query.buckets()} of them in time order, empty intervals
   * included. A rolled-up day counts in the interval holding its 00:00 UTC.
   */
  List<UsageBucket> usageOverTime(UsageSeriesQuery query);
}
