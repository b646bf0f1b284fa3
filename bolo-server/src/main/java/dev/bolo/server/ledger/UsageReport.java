package dev.bolo.server.ledger;

import java.util.List;

/** Summaries of the usage log: what {@code ./bolo usage} prints. Thread safe. */
public interface UsageReport {

  /** One summary per device that made a request in the query's range, by device name. */
  List<DeviceUsage> usage(UsageQuery query);
}
