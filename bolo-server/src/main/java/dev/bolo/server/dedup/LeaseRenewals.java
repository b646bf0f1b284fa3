package dev.bolo.server.dedup;

import dev.bolo.server.work.WorkKey;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases this instance holds while their work runs. One timer sweeps them all (a timer per
 * lease cost a scheduler wake-up per note): each is renewed once a third of the lease has passed
 * since its last renewal, and at once when the store's generation changes, so that owners take back
 * the claims a restarted Redis forgot.
 *
 * <p>Thread safe.
 */
final class LeaseRenewals {

  private static final Logger log = LoggerFactory.getLogger(LeaseRenewals.class);

  private final DedupStore store;
  private final Executor detached;
  private final LongSupplier ticker;
  private final Duration lease;
  private final GenerationWatch watch;
  private final Set<Renewal> renewing = ConcurrentHashMap.newKeySet();

  /** A third of the lease, in the ticker's nanoseconds: how often each lease is renewed. */
  private final long renewEvery;

  /**
   * Starts the sweep: every sixth of a lease, at most {@link GenerationWatch#PERIOD} and at least 5
   * ms apart, so a lease is renewed at the latest half a lease after the last renewal.
   *
   * @param detached runs each renewal on its own thread (virtual threads: a renewal that blocks on
   *     a slow store delays no other)
   * @param timer only times the sweep; never blocks
   */
  LeaseRenewals(
      DedupStore store,
      Executor detached,
      ScheduledExecutorService timer,
      LongSupplier ticker,
      Duration lease,
      GenerationWatch watch) {
    this.store = store;
    this.detached = detached;
    this.ticker = ticker;
    this.lease = lease;
    this.watch = watch;
    this.renewEvery = Math.max(10, lease.toMillis() / 3) * 1_000_000L;
    long sweep = Math.clamp(lease.toMillis() / 6, 5, GenerationWatch.PERIOD.toMillis());
    try {
      timer.scheduleWithFixedDelay(this::sweep, sweep, sweep, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Shutting down already: no work is started, so no lease needs renewing.
    }
  }

  /** Keeps the claim alive until {@link Renewal#stop()}. */
  Renewal start(WorkKey key, Claim.Owned owned) {
    return new Renewal(key, owned);
  }

  /**
   * Renews every lease when the store's generation changed, otherwise those a third of a lease old.
   * Non-blocking: each renewal runs on its own detached thread.
   */
  private void sweep() {
    long now = ticker.getAsLong();
    boolean changed = watch.look();
    for (Renewal renewal : renewing) {
      if (changed || now - renewal.renewedAt >= renewEvery) {
        renewal.due(now);
      }
    }
  }

  /**
   * One lease this instance holds. A renewal still running when the next is due is not doubled, so
   * neither a slow store call nor the number of leases delays another lease's renewal.
   */
  final class Renewal {
    private final WorkKey key;
    private final Claim.Owned owned;
    private final AtomicBoolean running = new AtomicBoolean();

    /** When the sweep last sent this lease to be renewed (the ticker's nanoseconds). */
    private volatile long renewedAt;

    private Renewal(WorkKey key, Claim.Owned owned) {
      this.key = key;
      this.owned = owned;
      this.renewedAt = ticker.getAsLong();
      renewing.add(this);
    }

    private void due(long now) {
      if (!running.compareAndSet(false, true)) {
        return;
      }
      renewedAt = now;
      try {
        detached.execute(this::renew);
      } catch (RejectedExecutionException e) {
        running.set(false);
      }
    }

    private void renew() {
      try {
        // While the shared store is unreachable, a fail-open store refuses every renewal: the
        // outage is logged once as it begins, not here once per running note every third lease.
        if (!store.renew(key, owned, lease) && !store.isDegraded()) {
          log.warn("lost the claim on {} while transcribing", key.asString());
        }
      } catch (RuntimeException e) {
        log.warn("could not renew the claim on {}: {}", key.asString(), e.toString());
      } finally {
        running.set(false);
      }
    }

    /** The work ended: the lease is no longer renewed. */
    void stop() {
      renewing.remove(this);
    }
  }
}
