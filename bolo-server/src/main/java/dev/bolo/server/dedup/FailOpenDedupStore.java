package dev.bolo.server.dedup;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>The rule for when to fall back lives in one place, {@link #useShared} and {@link #isOutage};
 * every store method goes through {@link #withFallBack}. The switch is logged once per transition,
 * reported by {@link #readiness()} (DEGRADED) and {@link #isDegraded()}, and undone by a probe that
 * tries the shared store again every {@link #RETRY_WHILE_DOWN} (and pings a healthy one every
 * {@code probeEvery}, to notice an outage before a request does). Claims remember which store
 * issued them (a prefix on the token), so work started on one side ends on the same side. A result
 * that could not be written to the shared store is kept here and written there once it answers
 * again ({@link WriteBehind}), so resends to any instance replay it.
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

  private static final String SHARED = "shared:";
  private static final String LOCAL = "local:";

  private final Supplier<DedupStore> connector;
  private final String sharedName;
  private final DedupStore local;
  private final WriteBehind writeBehind;
  private final ScheduledExecutorService prober;

  /** Keys whose work runs on the local side, so their duplicates wait there too. */
  private final Set<WorkKey> localWork = ConcurrentHashMap.newKeySet();

  /**
   * See {@link DedupStore#generation()}: bumped when Redis goes, when it answers again, and when a
   * connection drops while it is healthy.
   */
  private final AtomicLong generation = new AtomicLong();

  /** How often a healthy Redis is pinged, in nanoseconds. */
  private final long probeEvery;

  /** When a healthy Redis was last pinged (the probe's thread only). */
  private long probedAt = System.nanoTime();

  private final Object transitions = new Object();
  private volatile @Nullable DedupStore shared;
  private volatile @Nullable String degradedBecause;

  /**
   * @param connector opens the shared store, given a callback for dropped connections; throws
   *     {@link RedisException} while it is unreachable
   * @param sharedName names the shared store in logs and readiness, e.g. "redis 10.0.0.5:6379"
   * @param local serves while the shared store is unreachable
   * @param writeBehind holds results waiting for the shared store
   * @param probeEvery how often to ping the shared store while it is healthy
   */
  FailOpenDedupStore(
      java.util.function.Function<Runnable, DedupStore> connector,
      String sharedName,
      DedupStore local,
      WriteBehind writeBehind,
      Duration probeEvery) {
    Objects.requireNonNull(connector, "connector");
    this.connector = () -> connector.apply(this::connectionDropped);
    this.sharedName = Objects.requireNonNull(sharedName, "sharedName");
    this.local = Objects.requireNonNull(local, "local");
    this.writeBehind = Objects.requireNonNull(writeBehind, "writeBehind");
    this.prober =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bolo-store-probe").daemon().factory());
    try {
      shared = this.connector.get();
      log.info("de-duplicating across instances through {}", sharedName);
    } catch (RedisException e) {
      degrade(e);
    }
    this.probeEvery = probeEvery.toNanos();
    long every = Math.min(probeEvery.toMillis(), RETRY_WHILE_DOWN.toMillis());
    prober.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.MILLISECONDS);
  }

  static FailOpenDedupStore overRedis(
      RedisDedupStore.Options options, long localMaxBytes, Duration probeEvery) {
    return new FailOpenDedupStore(
        onDisconnect -> RedisDedupStore.connect(options, onDisconnect),
        "redis " + options.endpoint().describe(),
        DedupStore.inMemory(System::nanoTime, options.ttl(), localMaxBytes),
        new WriteBehind(WriteBehind.MAX_ENTRIES, localMaxBytes, options.ttl(), System::nanoTime),
        probeEvery);
  }

  // ------------------------------------------------------------------ the fall-back rule

  /**
   * Whether a call should go to the shared store at all, or straight to this instance's memory.
   *
   * @param key the work the call is about, when a local claim on it should keep it local
   */
  private boolean useShared(@Nullable WorkKey key) {
    // Redis was never reached since start: there is nothing to ask.
    if (shared == null) {
      return false;
    }
    // Redis is known to be down: do not make every upload wait a command timeout to learn it
    // again; the probe notices when it is back.
    if (degradedBecause != null) {
      return false;
    }
    // Work claimed here during an outage ends here, so its copies wait where it runs.
    if (key != null && localWork.contains(key)) {
      return false;
    }
    return true;
  }

  /** Whether a failed shared call means "fall back"; if not, the exception is the caller's. */
  private static boolean isOutage(RuntimeException e) {
    // An interrupted caller is not a sign of a dead Redis.
    if (e instanceof RedisCommandInterruptedException) {
      return false;
    }
    // Timeouts, refused or dropped connections, a Redis still loading: it cannot serve now.
    if (e instanceof RedisException) {
      return true;
    }
    // Anything else is a bug here, not an outage: let it surface.
    return false;
  }

  /** One call of a store method, on either side. */
  @FunctionalInterface
  private interface StoreCall<T, X extends Exception> {
    T call() throws X;
  }

  /**
   * Runs {@code onShared} when {@link #useShared} says so; when that fails with an outage, records
   * it and runs {@code fallBack}. Every store method goes through here.
   */
  private <T, X extends Exception> T withFallBack(
      @Nullable WorkKey key,
      java.util.function.Function<DedupStore, StoreCall<T, X>> onShared,
      StoreCall<T, X> fallBack)
      throws X {
    DedupStore s = shared;
    if (s != null && useShared(key)) {
      try {
        return onShared.apply(s).call();
      } catch (RuntimeException e) {
        if (!isOutage(e)) {
          throw e;
        }
        degrade((RedisException) e);
      }
    }
    return fallBack.call();
  }

  // ------------------------------------------------------------------ the store methods

  @Override
  public Claim claim(WorkKey key, Duration lease) {
    return withFallBack(
        key,
        s -> () -> tagged(s.claim(key, lease), SHARED),
        () -> {
          Claim claim = local.claim(key, lease);
          if (claim instanceof Claim.Owned) {
            localWork.add(key);
          }
          return tagged(claim, LOCAL);
        });
  }

  @Override
  public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
    if (isLocal(owner)) {
      return local.renew(key, untagged(owner), lease);
    }
    // Unreachable: the claim lapses in Redis; the work goes on and its result is kept here.
    return withFallBack(null, s -> () -> s.renew(key, untagged(owner), lease), () -> false);
  }

  @Override
  public boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    if (isLocal(owner)) {
      try {
        boolean kept = local.complete(key, untagged(owner), transcript);
        // Work run here during an outage: its result belongs in Redis too, for the other
        // instances' resends.
        writeToShared(key, new Claim.Owned(UUID.randomUUID().toString()), transcript);
        return kept;
      } finally {
        localWork.remove(key);
      }
    }
    return withFallBack(
        null,
        s -> () -> s.complete(key, untagged(owner), transcript),
        () -> {
          // Redis went away mid-call: keep the result here, so this instance replays it, and
          // write it to Redis once it answers again.
          writeBehind.add(key, untagged(owner), transcript);
          return local.claim(key, KEEP_LEASE) instanceof Claim.Owned kept
              && local.complete(key, kept, transcript);
        });
  }

  @Override
  public void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal) {
    if (isLocal(owner)) {
      try {
        local.fail(key, untagged(owner), refusal);
      } finally {
        localWork.remove(key);
      }
      return;
    }
    withFallBack(
        null,
        s ->
            () -> {
              s.fail(key, untagged(owner), refusal);
              return true;
            },
        // The claim then lapses with its lease; waiters elsewhere find the key vacant.
        () -> false);
  }

  @Override
  public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
    try {
      return withFallBack(key, s -> () -> s.await(key, timeout), () -> local.await(key, timeout));
    } catch (RedisCommandInterruptedException e) {
      InterruptedException interrupted = new InterruptedException("interrupted awaiting " + key);
      interrupted.initCause(e);
      Thread.interrupted();
      throw interrupted;
    }
  }

  @Override
  public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
    return withFallBack(
        null,
        s -> () -> s.bindIdempotencyKey(device, idempotencyKey, key),
        () -> local.bindIdempotencyKey(device, idempotencyKey, key));
  }

  @Override
  public long generation() {
    return generation.get();
  }

  /**
   * Degraded while Redis is unreachable, with the reason: the gateway still transcribes then, but
   * duplicates reaching different instances are no longer caught.
   */
  @Override
  public Readiness readiness() {
    String because = degradedBecause;
    if (because != null) {
      return Readiness.degraded(
          sharedName + " unreachable (" + because + "); de-duplicating on this instance only");
    }
    return Readiness.ok();
  }

  @Override
  public boolean isDegraded() {
    return degradedBecause != null;
  }

  @Override
  public int pendingWrites() {
    return writeBehind.size();
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

  // ------------------------------------------------------------------ probing and write-behind

  /**
   * Pings the shared store: a healthy one that stopped answering degrades before a request finds
   * out; a degraded one that answers again is used once more, after the results kept meanwhile are
   * written to it.
   */
  private void probe() {
    // Healthy: ping at the slower pace. Unreachable: try at every tick.
    long now = System.nanoTime();
    if (degradedBecause == null && shared != null && now - probedAt < probeEvery) {
      return;
    }
    probedAt = now;
    try {
      DedupStore s = shared;
      if (s == null) {
        s = connector.get();
        shared = s;
      }
      Readiness readiness = s.readiness();
      if (readiness.isReady()) {
        flushWriteBehind(s);
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

  private void writeToShared(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    withFallBack(
        null,
        s -> () -> s.complete(key, owner, transcript),
        () -> {
          writeBehind.add(key, owner, transcript);
          return false;
        });
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
      log.info("wrote {} result(s) kept during the outage to {}", due.size(), sharedName);
    }
  }

  private void degrade(RedisException e) {
    String message = e.getMessage();
    degrade(message == null ? e.getClass().getSimpleName() : message);
  }

  private void degrade(String because) {
    synchronized (transitions) {
      // Already degraded: nothing was read from the shared store since (only the probe tries it),
      // so nothing new may be forgotten. Bumping on every failed probe would make every new copy
      // wait out the settling time and every owner renew, five times a second.
      if (degradedBecause != null) {
        return;
      }
      // Degraded first: a caller that sees the new generation then finds every call local.
      degradedBecause = because;
      generation.incrementAndGet();
    }
    log.error(
        "{} is unreachable ({}): serving from this instance's memory WITHOUT de-duplication across"
            + " instances until it answers again",
        sharedName,
        because);
  }

  /**
   * A connection to the shared store dropped (on a Lettuce thread): messages about ends may have
   * been missed, so waiters look again. Not while degraded: nothing is read from the shared store
   * then, and {@link #recover} bumps the generation when it answers again. Lettuce may report the
   * drop after a request has already found the outage.
   */
  private void connectionDropped() {
    synchronized (transitions) {
      if (degradedBecause == null) {
        generation.incrementAndGet();
      }
    }
  }

  private void recover() {
    synchronized (transitions) {
      if (degradedBecause == null) {
        return;
      }
      degradedBecause = null;
      // Back, but possibly restarted: owners should take their claims again now.
      generation.incrementAndGet();
    }
    log.warn("{} answers again: de-duplicating across instances once more", sharedName);
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
