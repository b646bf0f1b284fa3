package dev.bolo.server.ledger;

import dev.bolo.server.health.Readiness;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Devices, their quota and their usage. Quota is reserved before an engine is called, committed
 * once when the work succeeds and released when it fails, so concurrent notes cannot overspend and
 * replays are never charged. A piece of work is charged at most once per device within the charge
 * window, however many runs, retries or instances commit it. Thread safe.
 */
public interface Ledger extends AutoCloseable {

  /**
   * A ledger in the database {@code config} names (PostgreSQL, or an SQLite file), its schema
   * migrated on open, reading the time {@code time} gives. Devices of {@code config.staticTokens()}
   * are added to it if missing.
   *
   * @throws LedgerException when the database cannot be reached or migrated
   */
  static DurableLedger jdbc(LedgerConfig config, LedgerTime time) {
    return jdbc(config, time, RateLimiter.perMinute(config.requestsPerMinute(), time.ticker()));
  }

  /**
   * As {@link #jdbc(LedgerConfig, LedgerTime)}, counting requests with {@code rateLimiter} (e.g.
   * one shared by every instance through Redis) instead of a per-instance count; the caller closes
   * it.
   */
  static DurableLedger jdbc(LedgerConfig config, LedgerTime time, RateLimiter rateLimiter) {
    return JdbcLedger.open(config, time, rateLimiter);
  }

  /** The device owning {@code token}; looked up by the token's hash, in constant time. */
  Optional<Device> authenticate(String token);

  /**
   * Holds {@code audioMillis} of the device's quota for one piece of work until {@code deadline}
   * from now (the work's engine deadline: a hold of a crashed instance stops counting then); {@link
   * Reservation.Exhausted} when that would overspend it, or when nothing is left at all (even for 0
   * ms: the work would still cost a provider call). Work already charged within the window is
   * granted a hold of 0 ms: it will not be charged again.
   *
   * @throws LedgerException when the database cannot be used
   */
  Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline);

  /**
   * Charges the work of a granted hold, {@code audioMillis} long (the length measured or reported
   * once the work succeeded), and drops the hold; at most once per (device, work) within the charge
   * window, even when the hold itself has already expired.
   *
   * @throws LedgerException when the database cannot be used; the charge may be retried
   */
  Charge commit(Reservation.Granted reservation, long audioMillis);

  /**
   * Charges like {@link #commit}, but need not have written the charge when it returns where
   * nothing depends on it (a device without a quota): the stage completes once it is written, or
   * fails as {@link #commit} would throw. By default, {@link #commit} now.
   */
  default CompletionStage<Charge> commitSoon(Reservation.Granted reservation, long audioMillis) {
    try {
      return CompletableFuture.completedFuture(commit(reservation, audioMillis));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Gives a granted hold back: the work failed. */
  void release(Reservation.Granted reservation);

  /** Appends one answered request to the usage log. */
  void record(UsageRecord usage);

  /**
   * Counts one request against the device's rate limit; {@link RateDecision.Limited} says how long
   * to wait (429 with {@code Retry-After}). Unlimited unless the ledger was configured with a
   * limit.
   */
  default RateDecision admit(Device device) {
    return RateDecision.allowed();
  }

  default Readiness readiness() {
    return Readiness.ok();
  }

  @Override
  default void close() {}
}
