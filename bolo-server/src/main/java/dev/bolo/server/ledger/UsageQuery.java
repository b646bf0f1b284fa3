package dev.bolo.server.ledger;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Which usage to summarise.
 *
 * @param device only this device; null for all
 * @param since only requests answered at or after this instant; null for all time
 */
public record UsageQuery(@Nullable String device, @Nullable Instant since) {

  public static UsageQuery all() {
    return new UsageQuery(null, null);
  }
}
