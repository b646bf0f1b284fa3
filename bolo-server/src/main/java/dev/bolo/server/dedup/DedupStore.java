package dev.bolo.server.dedup;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Where in-flight and finished work is coordinated. One store may serve many gateway instances
 * (Redis), so ownership is a lease with a token: the owner renews it while the engine runs, and
 * only the token's holder may complete or fail the work.
 *
 * <p>Only successes are kept, for the store's TTL; a failure wakes everyone waiting and leaves the
 * key vacant. All methods are safe to call from many threads.
 */
public interface DedupStore extends AutoCloseable {

  /**
   * A store in this process's memory.
   *
   * @param ticker monotonic nanoseconds, for leases and TTL; tests pass a fake one
   * @param ttl how long a finished transcript is replayed
   * @param maxBytes bound on the heap held by finished transcripts
   */
  static DedupStore inMemory(LongSupplier ticker, Duration ttl, long maxBytes) {
    return new InMemoryDedupStore(ticker, ttl, maxBytes);
  }

  /**
   * A store in Redis shared by every gateway instance that uses the same Redis, failing open: while
   * Redis is unreachable it serves from this process's memory (no cross-instance de-duplication),
   * reports itself degraded, keeps the results it could not write and writes them once Redis
   * answers again, and returns to Redis by itself.
   *
   * @param endpoint where Redis is (a server, a cluster's seed nodes, a sentinel)
   * @param commandTimeout how long one Redis command may take before Redis counts as unreachable
   * @param ttl how long a finished transcript is replayed
   * @param localMaxBytes bound on the heap held by the local fallback's finished transcripts
   * @param ticker monotonic nanoseconds for the local fallback's leases and TTL; tests pass a fake
   * @param waits monotonic nanoseconds for what passes in real time: a wait for Redis's message,
   *     the pace of the probe that finds Redis back
   */
  static DedupStore redis(
      RedisEndpoint endpoint,
      Duration commandTimeout,
      Duration ttl,
      long localMaxBytes,
      LongSupplier ticker,
      LongSupplier waits) {
    return FailOpenDedupStore.overRedis(
        RedisDedupStore.Options.of(endpoint, ttl, commandTimeout),
        localMaxBytes,
        FailOpenDedupStore.PROBE_EVERY,
        ticker,
        waits);
  }

  /**
   * Atomically: the stored transcript if the work is done; else ownership with a lease if nobody
   * holds a live one; else {@link Claim.Busy}. A store shared by instances keeps the current span
   * (the resolution of the copy that claims) with a claim it grants and names it in the {@link
   * Claim.Busy} it answers others, so that a copy joined on another instance links to the owner's
   * span; a store of one instance need not (its copies meet in {@link WorkCoordinator}).
   */
  Claim claim(WorkKey key, Duration lease);

  /**
   * Extends the owner's lease, taking the claim again if the store forgot it (a Redis restart);
   * false when another owner holds it (the lease expired and was taken) or the work is done.
   */
  boolean renew(WorkKey key, Claim.Owned owner, Duration lease);

  /**
   * Stores the transcript for the TTL and wakes waiters, unless another owner holds a live claim or
   * a transcript is stored already (a late owner never overwrites another's result); returns
   * whether it stored it. A claim the store forgot does not stop the owner.
   */
  boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript);

  /**
   * Releases the claim and gives {@code refusal} to everyone waiting, unless another owner holds a
   * live claim; stores nothing.
   */
  void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal);

  /**
   * Waits up to {@code timeout} for the in-flight work on {@code key} to end. Without live work it
   * answers at once: the stored transcript, the failure of the last work if nobody has claimed the
   * key since, else {@link Resolution.Vacant}.
   *
   * @throws InterruptedException with the interrupt flag cleared, as usual
   */
  Resolution await(WorkKey key, Duration timeout) throws InterruptedException;

  /**
   * Binds a client's {@code Idempotency-Key} to the work for the TTL, scoped to the device, or
   * reports which work it is already bound to.
   */
  IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key);

  /**
   * A number that changes whenever the store may have forgotten claims it reported (a Redis
   * restart, a dropped connection, an outage): a waiter that saw another instance's claim trusts a
   * later "vacant" only while this stays the same. Constant for a store that cannot forget.
   */
  default long generation() {
    return 0;
  }

  /** Whether the store can be used now; may block briefly (a ping). */
  default Readiness readiness() {
    return Readiness.ok();
  }

  /**
   * True while the store serves from a local fallback, without de-duplication across gateway
   * instances (for a metric); always false for a store that has no fallback.
   */
  default boolean isDegraded() {
    return false;
  }

  /**
   * Results kept on this instance that still wait to be written to the shared store (for a metric);
   * always 0 for a store without a shared side.
   */
  default int pendingWrites() {
    return 0;
  }

  @Override
  default void close() {}

  /**
   * The client's Idempotency-Key scoped to its device, so two devices may choose the same key: the
   * device's length first, so no device name can end where another's key begins.
   */
  static String idempotencyScope(String device, String idempotencyKey) {
    return device.length() + ":" + device + ":" + idempotencyKey;
  }
}
