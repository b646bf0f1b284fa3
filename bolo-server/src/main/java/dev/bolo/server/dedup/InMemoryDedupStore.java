package dev.bolo.server.dedup;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * {@link DedupStore} for one instance: finished transcripts in a Caffeine cache bounded by weight
 * and expiring after the TTL; in-flight work in a map of futures that waiters block on.
 */
final class InMemoryDedupStore implements DedupStore {

  /**
   * How long a failure is remembered for waiters that saw the work busy but reached {@link #await}
   * only after it failed; a new claim forgets it at once.
   */
  static final Duration FAILURE_MEMORY = Duration.ofSeconds(10);

  private final LongSupplier ticker;
  private final Cache<WorkKey, KeptTranscript> completed;
  private final Cache<String, WorkKey> idempotencyKeys;
  private final Cache<WorkKey, WorkResult.Refused> recentFailures;
  private final ConcurrentHashMap<WorkKey, InFlight> inFlight = new ConcurrentHashMap<>();

  private record InFlight(
      String token, long leaseDeadlineNanos, CompletableFuture<Resolution> end) {
    boolean isLive(long now) {
      return now - leaseDeadlineNanos < 0;
    }
  }

  InMemoryDedupStore(LongSupplier ticker, Duration ttl, long maxBytes) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive: " + ttl);
    }
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.completed =
        Caffeine.newBuilder()
            .ticker(ticker::getAsLong)
            .expireAfterWrite(ttl)
            .maximumWeight(maxBytes)
            .weigher((WorkKey key, KeptTranscript transcript) -> transcript.weight())
            .build();
    // An idempotency key is small; bound the count so a misbehaving client cannot grow it forever.
    this.idempotencyKeys =
        Caffeine.newBuilder()
            .ticker(ticker::getAsLong)
            .expireAfterWrite(ttl)
            .maximumSize(Math.max(1_000, maxBytes / 512))
            .build();
    this.recentFailures =
        Caffeine.newBuilder()
            .ticker(ticker::getAsLong)
            .expireAfterWrite(FAILURE_MEMORY)
            .maximumSize(Math.max(1_000, maxBytes / 512))
            .build();
  }

  @Override
  public Claim claim(WorkKey key, Duration lease) {
    KeptTranscript done = completed.getIfPresent(key);
    if (done != null) {
      return new Claim.Completed(done);
    }
    String token = UUID.randomUUID().toString();
    long now = ticker.getAsLong();
    InFlight[] expired = new InFlight[1];
    InFlight holder =
        inFlight.compute(
            key,
            (k, current) -> {
              if (current != null && current.isLive(now)) {
                return current;
              }
              expired[0] = current;
              return new InFlight(token, now + lease.toNanos(), new CompletableFuture<>());
            });
    if (expired[0] != null) {
      // The previous owner's lease ran out: its waiters must claim afresh rather than wait forever.
      expired[0].end().complete(new Resolution.Vacant());
    }
    if (!holder.token().equals(token)) {
      return new Claim.Busy();
    }
    // New work on this key: an earlier failure no longer answers anyone who waits from now on.
    recentFailures.invalidate(key);
    // Completed between our look-up and our claim: hand back the result, not a second call.
    KeptTranscript raced = completed.getIfPresent(key);
    if (raced != null) {
      inFlight.remove(key, holder);
      holder.end().complete(new Resolution.Completed(raced));
      return new Claim.Completed(raced);
    }
    return new Claim.Owned(token);
  }

  @Override
  public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
    if (completed.getIfPresent(key) != null) {
      return false;
    }
    long now = ticker.getAsLong();
    InFlight renewed =
        inFlight.compute(
            key,
            (k, current) -> {
              // Another owner's live claim stands; an own, vanished or expired one is (re)taken.
              if (current != null
                  && !current.token().equals(owner.token())
                  && current.isLive(now)) {
                return current;
              }
              CompletableFuture<Resolution> end =
                  current != null ? current.end() : new CompletableFuture<>();
              return new InFlight(owner.token(), now + lease.toNanos(), end);
            });
    return renewed.token().equals(owner.token());
  }

  @Override
  public boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    InFlight current = inFlight.get(key);
    if (isHeldByAnother(current, owner) || completed.getIfPresent(key) != null) {
      return false;
    }
    completed.put(key, transcript);
    if (current != null) {
      inFlight.remove(key, current);
      current.end().complete(new Resolution.Completed(transcript));
    }
    return true;
  }

  @Override
  public void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal) {
    InFlight current = inFlight.get(key);
    if (isHeldByAnother(current, owner)) {
      return;
    }
    recentFailures.put(key, refusal);
    if (current != null) {
      inFlight.remove(key, current);
      current.end().complete(new Resolution.Failed(refusal));
    }
  }

  /** Whether someone other than {@code owner} holds a live claim: then only they may end it. */
  private boolean isHeldByAnother(@Nullable InFlight current, Claim.Owned owner) {
    return current != null
        && !current.token().equals(owner.token())
        && current.isLive(ticker.getAsLong());
  }

  @Override
  public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
    InFlight current = inFlight.get(key);
    // Nobody holds a live lease: answer from what is stored instead of waiting for a dead owner.
    if (current == null || !current.isLive(ticker.getAsLong())) {
      KeptTranscript done = completed.getIfPresent(key);
      if (done != null) {
        return new Resolution.Completed(done);
      }
      WorkResult.Refused failed = recentFailures.getIfPresent(key);
      return failed != null ? new Resolution.Failed(failed) : new Resolution.Vacant();
    }
    try {
      return current.end().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return new Resolution.Pending();
    } catch (ExecutionException e) {
      throw new IllegalStateException("in-flight futures are never completed exceptionally", e);
    }
  }

  @Override
  public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
    String scoped = DedupStore.idempotencyScope(device, idempotencyKey);
    boolean[] bound = new boolean[1];
    @Nullable WorkKey existing =
        idempotencyKeys
            .asMap()
            .computeIfAbsent(
                scoped,
                k -> {
                  bound[0] = true;
                  return key;
                });
    if (bound[0]) {
      return IdempotencyCheck.BOUND;
    }
    return key.equals(existing) ? IdempotencyCheck.SAME_WORK : IdempotencyCheck.OTHER_WORK;
  }
}
