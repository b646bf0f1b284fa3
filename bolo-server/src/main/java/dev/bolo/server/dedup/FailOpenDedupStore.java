package dev.bolo.server.dedup;

import dev.bolo.server.Readiness;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared (Redis) store that fails open: while the shared store is unreachable every call is
 * served by a local in-memory store instead, so uploads keep being transcribed, only without
 * de-duplication across instances. A duplicate transcription costs money; a refused upload costs
 * the user their note, so availability wins.
 *
 * <p>The switch is logged once per transition, reported by {@link #readiness()} and {@link
 * #isDegraded()}, and undone by a probe that pings the shared store every {@code probeEvery} (and
 * also notices an outage before a request does). Claims remember which store issued them (a prefix
 * on the token), so work started on one side ends on the same side.
 *
 * <p>Thread safe.
 */
final class FailOpenDedupStore implements DedupStore {

  private static final Logger log = LoggerFactory.getLogger(FailOpenDedupStore.class);

  /** How often the store pings Redis: the longest a recovered Redis stays unused. */
  static final Duration PROBE_EVERY = Duration.ofSeconds(1);

  /** The lease of a local claim made only to keep a result that Redis could not take. */
  private static final Duration KEEP_LEASE = Duration.ofMinutes(1);

  private static final String SHARED = "shared:";
  private static final String LOCAL = "local:";

  private final Supplier<DedupStore> connector;
  private final String sharedName;
  private final DedupStore local;
  private final ScheduledExecutorService prober;

  /** Keys whose work runs on the local side, so their duplicates wait there too. */
  private final Set<WorkKey> localWork = ConcurrentHashMap.newKeySet();

  private final Object transitions = new Object();
  private volatile @Nullable DedupStore shared;
  private volatile @Nullable String degradedBecause;

  /**
   * @param connector opens the shared store; throws {@link RedisException} while it is unreachable
   * @param sharedName names the shared store in logs and readiness, e.g. "redis 10.0.0.5:6379"
   * @param local serves while the shared store is unreachable
   * @param probeEvery how often to ping the shared store
   */
  FailOpenDedupStore(
      Supplier<DedupStore> connector, String sharedName, DedupStore local, Duration probeEvery) {
    this.connector = Objects.requireNonNull(connector, "connector");
    this.sharedName = Objects.requireNonNull(sharedName, "sharedName");
    this.local = Objects.requireNonNull(local, "local");
    this.prober =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bolo-store-probe").daemon().factory());
    try {
      shared = connector.get();
      log.info("de-duplicating across instances through {}", sharedName);
    } catch (RedisException e) {
      degrade(e);
    }
    long every = probeEvery.toMillis();
    prober.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.MILLISECONDS);
  }

  static FailOpenDedupStore overRedis(
      RedisDedupStore.Options options, long localMaxBytes, Duration probeEvery) {
    return new FailOpenDedupStore(
        () -> RedisDedupStore.connect(options),
        "redis " + options.endpoint().describe(),
        DedupStore.inMemory(System::nanoTime, options.ttl(), localMaxBytes),
        probeEvery);
  }

  @Override
  public Claim claim(WorkKey key, Duration lease) {
    DedupStore s = shared;
    if (s != null && degradedBecause == null && !localWork.contains(key)) {
      try {
        return tagged(s.claim(key, lease), SHARED);
      } catch (RedisException e) {
        rethrowIfInterrupted(e);
        degrade(e);
      }
    }
    Claim claim = local.claim(key, lease);
    if (claim instanceof Claim.Owned) {
      localWork.add(key);
    }
    return tagged(claim, LOCAL);
  }

  @Override
  public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
    if (isLocal(owner)) {
      return local.renew(key, untagged(owner), lease);
    }
    DedupStore s = shared;
    if (s == null) {
      return false;
    }
    try {
      return s.renew(key, untagged(owner), lease);
    } catch (RedisException e) {
      rethrowIfInterrupted(e);
      degrade(e);
      return false;
    }
  }

  @Override
  public boolean complete(WorkKey key, Claim.Owned owner, Transcript transcript) {
    if (isLocal(owner)) {
      try {
        return local.complete(key, untagged(owner), transcript);
      } finally {
        localWork.remove(key);
      }
    }
    DedupStore s = shared;
    if (s != null) {
      try {
        return s.complete(key, untagged(owner), transcript);
      } catch (RedisException e) {
        rethrowIfInterrupted(e);
        degrade(e);
      }
    }
    // Redis went away mid-call: keep the result here, so at least this instance replays it.
    return local.claim(key, KEEP_LEASE) instanceof Claim.Owned kept
        && local.complete(key, kept, transcript);
  }

  @Override
  public void fail(WorkKey key, Claim.Owned owner, Outcome.Refused refusal) {
    if (isLocal(owner)) {
      try {
        local.fail(key, untagged(owner), refusal);
      } finally {
        localWork.remove(key);
      }
      return;
    }
    DedupStore s = shared;
    if (s == null) {
      return;
    }
    try {
      s.fail(key, untagged(owner), refusal);
    } catch (RedisException e) {
      // The claim then lapses with its lease; waiters elsewhere find the key vacant.
      rethrowIfInterrupted(e);
      degrade(e);
    }
  }

  @Override
  public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
    DedupStore s = shared;
    if (s != null && degradedBecause == null && !localWork.contains(key)) {
      try {
        return s.await(key, timeout);
      } catch (RedisCommandInterruptedException e) {
        InterruptedException interrupted = new InterruptedException("interrupted awaiting " + key);
        interrupted.initCause(e);
        Thread.interrupted();
        throw interrupted;
      } catch (RedisException e) {
        degrade(e);
      }
    }
    return local.await(key, timeout);
  }

  @Override
  public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
    DedupStore s = shared;
    if (s != null && degradedBecause == null) {
      try {
        return s.bindIdempotencyKey(device, idempotencyKey, key);
      } catch (RedisException e) {
        rethrowIfInterrupted(e);
        degrade(e);
      }
    }
    return local.bindIdempotencyKey(device, idempotencyKey, key);
  }

  /**
   * Not ready while degraded, with the reason. The gateway still transcribes then; the report says
   * that duplicates reaching different instances are no longer caught.
   */
  @Override
  public Readiness readiness() {
    String because = degradedBecause;
    if (because != null) {
      return Readiness.notReady(
          sharedName + " unreachable (" + because + "); de-duplicating on this instance only");
    }
    return Readiness.ok();
  }

  @Override
  public boolean isDegraded() {
    return degradedBecause != null;
  }

  @Override
  public void close() {
    prober.shutdownNow();
    DedupStore s = shared;
    if (s != null) {
      s.close();
    }
    local.close();
  }

  /**
   * Pings the shared store: a healthy one that stopped answering degrades before a request finds
   * out; a degraded one that answers again is used once more.
   */
  private void probe() {
    try {
      DedupStore s = shared;
      if (s == null) {
        s = connector.get();
        shared = s;
      }
      Readiness readiness = s.readiness();
      if (readiness.ready()) {
        recover();
      } else {
        degrade(readiness.detail());
      }
    } catch (RedisException e) {
      log.debug("{} still unreachable: {}", sharedName, e.toString());
    } catch (RuntimeException e) {
      // A bug must not kill the probe: it would leave the store degraded for good.
      log.error("probing {} failed unexpectedly", sharedName, e);
    }
  }

  private void degrade(RedisException e) {
    String message = e.getMessage();
    degrade(message == null ? e.getClass().getSimpleName() : message);
  }

  private void degrade(String because) {
    synchronized (transitions) {
      if (degradedBecause != null) {
        return;
      }
      degradedBecause = because;
    }
    log.error(
        "{} is unreachable ({}): serving from this instance's memory WITHOUT de-duplication across"
            + " instances until it answers again",
        sharedName,
        because);
  }

  private void recover() {
    synchronized (transitions) {
      if (degradedBecause == null) {
        return;
      }
      degradedBecause = null;
    }
    log.warn("{} answers again: de-duplicating across instances once more", sharedName);
  }

  private static void rethrowIfInterrupted(RedisException e) {
    // An interrupted caller is not a sign of a dead Redis.
    if (e instanceof RedisCommandInterruptedException) {
      throw e;
    }
  }

  private static Claim tagged(Claim claim, String side) {
    return claim instanceof Claim.Owned owned ? new Claim.Owned(side + owned.token()) : claim;
  }

  private static boolean isLocal(Claim.Owned owner) {
    return owner.token().startsWith(LOCAL);
  }

  private static Claim.Owned untagged(Claim.Owned owner) {
    String token = owner.token();
    if (token.startsWith(LOCAL)) {
      return new Claim.Owned(token.substring(LOCAL.length()));
    }
    if (token.startsWith(SHARED)) {
      return new Claim.Owned(token.substring(SHARED.length()));
    }
    // Not one of ours: pass it through so the store can refuse it.
    return owner;
  }
}
