package dev.bolo.server.dedup;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared (Redis) store that fails open: while the shared store is unreachable every call is
 * served by a local in-memory store instead, so uploads keep being transcribed, only without
 * de-duplication across instances. A duplicate transcription costs money; a refused upload costs
 * the user their note, so availability wins.
 *
 * <p>The rule for when to fall back lives in one place, {@link FallBackRule}; every store method
 * goes through it. The switch is logged once per transition ({@link SharedStoreLink}), reported by
 * {@link #readiness()} (DEGRADED) and {@link #isDegraded()}, and undone by a probe ({@link
 * SharedStoreProbe}) that tries the shared store again every {@link #RETRY_WHILE_DOWN} (and pings a
 * healthy one every {@code probeEvery}, to notice an outage before a request does). Claims remember
 * which store issued them ({@link ClaimSide}), so work started on one side ends on the same side. A
 * result that could not be written to the shared store is kept here and written there once it
 * answers again ({@link WriteBehind}), so resends to any instance replay it.
 *
 * <p>Thread safe.
 */
final class FailOpenDedupStore implements DedupStore {

  private static final Logger log = LoggerFactory.getLogger(FailOpenDedupStore.class);

  /** How often the store pings a healthy Redis, so an outage shows before a request finds it. */
  static final Duration PROBE_EVERY = Duration.ofSeconds(1);

  /**
   * How often the store tries an unreachable Redis again: the longest a recovered Redis stays
   * unused. Short, because waiters on other instances' claims trust them only for a lease after the
   * outage began; each try is one connection attempt or ping.
   */
  static final Duration RETRY_WHILE_DOWN = Duration.ofMillis(200);

  /** The lease of a local claim made only to keep a result that Redis could not take. */
  private static final Duration KEEP_LEASE = Duration.ofMinutes(1);

  private final SharedStoreLink link;
  private final FallBackRule rule;
  private final DedupStore local;
  private final WriteBehind writeBehind;
  private final SharedStoreProbe probe;

  /**
   * @param connector opens the shared store, given a callback for dropped connections; throws
   *     {@link RedisException} while it is unreachable
   * @param sharedName names the shared store in logs and readiness, e.g. "redis 10.0.0.5:6379"
   * @param local serves while the shared store is unreachable
   * @param writeBehind holds results waiting for the shared store
   * @param probeEvery how often to ping the shared store while it is healthy
   * @param probeTicker elapsed nanoseconds for the probe's pace, passing in real time
   */
  FailOpenDedupStore(
      Function<Runnable, DedupStore> connector,
      String sharedName,
      DedupStore local,
      WriteBehind writeBehind,
      Duration probeEvery,
      LongSupplier probeTicker) {
    this.link =
        new SharedStoreLink(
            Objects.requireNonNull(connector, "connector"),
            Objects.requireNonNull(sharedName, "sharedName"));
    this.rule = new FallBackRule(link);
    this.local = Objects.requireNonNull(local, "local");
    this.writeBehind = Objects.requireNonNull(writeBehind, "writeBehind");
    try {
      link.connect();
      log.info("de-duplicating across instances through {}", sharedName);
    } catch (RedisException e) {
      link.degrade(e);
    }
    this.probe = new SharedStoreProbe(link, writeBehind, probeEvery, probeTicker);
  }

  /**
   * The store over Redis.
   *
   * @param ticker elapsed nanoseconds for the local store's leases and TTL and the kept results
   * @param waits elapsed nanoseconds for what passes in real time: a wait for Redis's message, the
   *     probe's pace
   */
  static FailOpenDedupStore overRedis(
      RedisDedupStore.Options options,
      long localMaxBytes,
      Duration probeEvery,
      LongSupplier ticker,
      LongSupplier waits) {
    return new FailOpenDedupStore(
        onDisconnect -> RedisDedupStore.connect(options, waits, onDisconnect),
        "redis " + options.endpoint().describe(),
        DedupStore.inMemory(ticker, options.ttl(), localMaxBytes),
        new WriteBehind(WriteBehind.MAX_ENTRIES, localMaxBytes, options.ttl(), ticker),
        probeEvery,
        waits);
  }

  @Override
  public Claim claim(WorkKey key, Duration lease) {
    return rule.withFallBack(
        key,
        s -> () -> ClaimSide.SHARED.tag(s.claim(key, lease)),
        () -> {
          Claim claim = local.claim(key, lease);
          if (claim instanceof Claim.Owned) {
            rule.runsLocally(key);
          }
          return ClaimSide.LOCAL.tag(claim);
        });
  }

  @Override
  public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
    Claim.Owned untagged = ClaimSide.untagged(owner);
    if (ClaimSide.isLocal(owner)) {
      return local.renew(key, untagged, lease);
    }
    // Unreachable: the claim lapses in Redis; the work goes on and its result is kept here.
    return rule.withFallBack(null, s -> () -> s.renew(key, untagged, lease), () -> false);
  }

  @Override
  public boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    Claim.Owned untagged = ClaimSide.untagged(owner);
    if (ClaimSide.isLocal(owner)) {
      try {
        boolean kept = local.complete(key, untagged, transcript);
        // Work run here during an outage: its result belongs in Redis too, for the other
        // instances' resends.
        writeToShared(key, new Claim.Owned(UUID.randomUUID().toString()), transcript);
        return kept;
      } finally {
        rule.endedLocally(key);
      }
    }
    return rule.withFallBack(
        null,
        s -> () -> s.complete(key, untagged, transcript),
        () -> {
          // Redis went away mid-call: keep the result here, so this instance replays it, and
          // write it to Redis once it answers again.
          writeBehind.add(key, untagged, transcript);
          return local.claim(key, KEEP_LEASE) instanceof Claim.Owned kept
              && local.complete(key, kept, transcript);
        });
  }

  @Override
  public void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal) {
    Claim.Owned untagged = ClaimSide.untagged(owner);
    if (ClaimSide.isLocal(owner)) {
      try {
        local.fail(key, untagged, refusal);
      } finally {
        rule.endedLocally(key);
      }
      return;
    }
    rule.withFallBack(
        null,
        s ->
            () -> {
              s.fail(key, untagged, refusal);
              return true;
            },
        // The claim then lapses with its lease; waiters elsewhere find the key vacant.
        () -> false);
  }

  @Override
  public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
    try {
      return rule.withFallBack(
          key, s -> () -> s.await(key, timeout), () -> local.await(key, timeout));
    } catch (RedisCommandInterruptedException e) {
      InterruptedException interrupted = new InterruptedException("interrupted awaiting " + key);
      interrupted.initCause(e);
      Thread.interrupted();
      throw interrupted;
    }
  }

  @Override
  public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
    return rule.withFallBack(
        null,
        s -> () -> s.bindIdempotencyKey(device, idempotencyKey, key),
        () -> local.bindIdempotencyKey(device, idempotencyKey, key));
  }

  @Override
  public long generation() {
    return link.generation();
  }

  /**
   * Degraded while Redis is unreachable, with the reason: the gateway still transcribes then, but
   * duplicates reaching different instances are no longer caught.
   */
  @Override
  public Readiness readiness() {
    String because = link.degradedBecause();
    if (because != null) {
      return Readiness.degraded(
          link.name() + " unreachable (" + because + "); de-duplicating on this instance only");
    }
    return Readiness.ok();
  }

  @Override
  public boolean isDegraded() {
    return link.isDegraded();
  }

  @Override
  public int pendingWrites() {
    return writeBehind.size();
  }

  @Override
  public void close() {
    probe.close();
    DedupStore s = link.shared();
    if (s != null) {
      s.close();
    }
    local.close();
  }

  /** Writes a result to the shared store, or keeps it for the probe to write once it answers. */
  private void writeToShared(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    rule.withFallBack(
        null,
        s -> () -> s.complete(key, owner, transcript),
        () -> {
          writeBehind.add(key, owner, transcript);
          return false;
        });
  }
}
