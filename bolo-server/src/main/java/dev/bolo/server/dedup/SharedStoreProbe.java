package dev.bolo.server.dedup;

import dev.bolo.server.health.Readiness;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tries the shared store on its own thread: a healthy one that stopped answering degrades before a
 * request finds out; a degraded one that answers again is used once more, after the results kept
 * meanwhile ({@link WriteBehind}) are written to it. Tries an unreachable store every {@link
 * FailOpenDedupStore#RETRY_WHILE_DOWN} and pings a healthy one every {@code probeEvery}.
 *
 * <p>Thread safe.
 */
final class SharedStoreProbe implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SharedStoreProbe.class);

  private final SharedStoreLink link;
  private final WriteBehind writeBehind;
  private final ScheduledExecutorService prober;

  /** How often a healthy shared store is pinged, in nanoseconds. */
  private final long probeEvery;

  /** Elapsed nanoseconds, passing in real time as the probe's own schedule does. */
  private final LongSupplier ticker;

  /** When a healthy shared store was last pinged (the probe's thread only). */
  private long probedAt;

  /** Starts probing. */
  SharedStoreProbe(
      SharedStoreLink link, WriteBehind writeBehind, Duration probeEvery, LongSupplier ticker) {
    this.link = link;
    this.writeBehind = writeBehind;
    this.probeEvery = probeEvery.toNanos();
    this.ticker = ticker;
    this.probedAt = ticker.getAsLong();
    this.prober =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bolo-store-probe").daemon().factory());
    long every = Math.min(probeEvery.toMillis(), FailOpenDedupStore.RETRY_WHILE_DOWN.toMillis());
    prober.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.MILLISECONDS);
  }

  private void probe() {
    // Healthy: ping at the slower pace. Unreachable: try at every tick.
    long now = ticker.getAsLong();
    if (!link.isDegraded() && link.shared() != null && now - probedAt < probeEvery) {
      return;
    }
    probedAt = now;
    try {
      DedupStore s = link.connect();
      Readiness readiness = s.readiness();
      if (readiness.isReady()) {
        flushWriteBehind(s);
        link.recover();
      } else {
        link.degrade(readiness.detail());
      }
    } catch (RedisException e) {
      log.debug("{} still unreachable: {}", link.name(), e.toString());
    } catch (RuntimeException e) {
      // A bug must not kill the probe: it would leave the store degraded for good.
      log.error("probing {} failed unexpectedly", link.name(), e);
    }
  }

  /** Writes every kept result; stops at the first outage, keeping the rest for the next probe. */
  private void flushWriteBehind(DedupStore s) {
    List<WriteBehind.Pending> due = writeBehind.drain();
    for (int i = 0; i < due.size(); i++) {
      WriteBehind.Pending pending = due.get(i);
      try {
        // False when another owner's result is there already: that one stands.
        s.complete(pending.key(), pending.owner(), pending.transcript());
      } catch (RedisException e) {
        due.subList(i, due.size()).forEach(writeBehind::putBack);
        throw e;
      }
    }
    if (!due.isEmpty()) {
      log.info("wrote {} result(s) kept during the outage to {}", due.size(), link.name());
    }
  }

  /** Stops probing. */
  @Override
  public void close() {
    prober.shutdownNow();
  }
}
