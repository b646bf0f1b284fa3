package dev.bolo.server.dedup;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.opentelemetry.api.trace.Span;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * {@link DedupStore} in Redis, shared by every gateway instance on the same Redis.
 *
 * <p>Per work key there are up to four entries ({@link RedisEntries}), all with the key in a hash
 * tag so they share one Redis Cluster slot: {@code :claim} holds the owner's token with the lease
 * as its expiry ({@code SET NX PX}); {@code :owner} the owner's span beside it, when traced, so
 * that a copy joined on another instance links to it ({@link OwnerSpans}); {@code :done} holds the
 * finished transcript for the TTL; {@code :failed} remembers the last failure briefly, until the
 * next claim. Completion, failure and renewal are Lua scripts that act only while no other owner's
 * token holds the claim (compare-and-set) and, for completion, no result is stored yet, so a late
 * owner never overwrites another's result; they publish the end on the key's channel. A claim that
 * Redis forgot (a restart without persistence) does not stop its owner: its renewal takes the claim
 * again and its result is still stored; a claim made on a vacant key in the lease after such a
 * restart is tentative until then ({@link RedisScripts}, epochs), so the owner's taking back wins
 * however late it comes within its lease. A waiter subscribes first, then looks at the entries,
 * then waits for the message while re-reading the entries on a slow poll, so neither a message
 * published before it subscribed nor a lease that expired without a message is missed.
 *
 * <p>Thread safe. Redis failures surface as {@link RedisException}; the fail-open wrapper turns
 * them into a local fallback.
 */
final class RedisDedupStore implements DedupStore {

  /** Where the epoch lives, outside a Redis Cluster (see {@link RedisScripts}). */
  static final String EPOCH = "bolo:epoch";

  /**
   * Tunables of the Redis store.
   *
   * @param endpoint where Redis is
   * @param ttl how long a finished transcript (and an idempotency key) is kept
   * @param commandTimeout how long one Redis command may take before Redis counts as unreachable;
   *     short, so a dead Redis does not stall uploads
   * @param pollEvery how often a waiter re-reads the entries besides listening for the message
   * @param failureMemory how long a failure answers waiters that arrive after it
   */
  record Options(
      RedisEndpoint endpoint,
      Duration ttl,
      Duration commandTimeout,
      Duration pollEvery,
      Duration failureMemory) {

    Options {
      Objects.requireNonNull(endpoint, "endpoint");
      requirePositiveMillis("ttl", ttl);
      requirePositiveMillis("commandTimeout", commandTimeout);
      requirePositiveMillis("pollEvery", pollEvery);
      requirePositiveMillis("failureMemory", failureMemory);
    }

    /**
     * Defaults for production: the operator's command timeout ({@code BOLO_REDIS_TIMEOUT}, 1 s: a
     * healthy Redis on the LAN answers within milliseconds), a 500 ms poll (the backstop for a lost
     * message or an expired lease; the coordinator looks again every second anyway).
     */
    static Options of(RedisEndpoint endpoint, Duration ttl, Duration commandTimeout) {
      return new Options(
          endpoint, ttl, commandTimeout, Duration.ofMillis(500), InMemoryDedupStore.FAILURE_MEMORY);
    }

    private static void requirePositiveMillis(String name, Duration value) {
      if (value.toMillis() <= 0) {
        throw new IllegalArgumentException(name + " must be at least 1 ms: " + value);
      }
    }
  }

  private final RedisEndpoint.Connections connections;
  private final RedisClusterCommands<String, String> redis;
  private final RedisSubscriptions subscriptions;
  private final Options options;
  private final LongSupplier waits;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The Redis epoch this instance last saw ('' before the first), see {@link RedisScripts}. */
  private volatile String knownEpoch = "";

  private RedisDedupStore(
      RedisEndpoint.Connections connections, Options options, LongSupplier waits) {
    this.connections = connections;
    this.redis = connections.commands();
    this.subscriptions = new RedisSubscriptions(connections.pubSub(), options.commandTimeout());
    this.options = options;
    this.waits = waits;
    // Known from the start, so that a Redis that loses its data before this instance's first
    // claim is still recognised as having lost it.
    if (!connections.clustered()) {
      learnEpoch(
          redis.eval(
              RedisScripts.EPOCH_ID,
              ScriptOutputType.VALUE,
              new String[] {EPOCH},
              "",
              UUID.randomUUID().toString()));
    }
  }

  /**
   * Connects to Redis.
   *
   * @param waits elapsed nanoseconds for a waiter's deadline: it waits for Redis's message in real
   *     time, so it is not a ticker a test holds still
   * @throws RedisException if Redis is unreachable
   */
  static RedisDedupStore connect(Options options, LongSupplier waits, Runnable onDisconnect) {
    return new RedisDedupStore(
        options.endpoint().connect(options.commandTimeout(), onDisconnect), options, waits);
  }

  @Override
  public Claim claim(WorkKey key, Duration lease) {
    RedisEntries e = RedisEntries.of(key);
    String token = UUID.randomUUID().toString();
    String answer =
        redis.eval(
            RedisScripts.CLAIM,
            ScriptOutputType.VALUE,
            withEpoch(e.claim(), e.done(), e.failed(), e.owner()),
            token,
            millis(lease),
            knownEpoch,
            OwnerSpans.traceparent(Span.current().getSpanContext()));
    return switch (answer.charAt(0)) {
      case 'D' -> new Claim.Completed(transcript(answer.substring(1)));
      case 'O' -> {
        learnEpoch(answer.substring(1));
        yield new Claim.Owned(token);
      }
      case 'B' -> {
        // The epoch, then the owner's span when it left one.
        int space = answer.indexOf(' ');
        learnEpoch(space < 0 ? answer.substring(1) : answer.substring(1, space));
        yield new Claim.Busy(
            OwnerSpans.fromTraceparent(space < 0 ? null : answer.substring(space + 1)));
      }
      case 'T' -> {
        int colon = answer.indexOf(':');
        learnEpoch(answer.substring(colon + 1));
        yield confirmLater(
            e, token, Duration.ofMillis(Long.parseLong(answer, 1, colon, 10)), lease);
      }
      default -> throw new IllegalStateException("unexpected claim answer: " + answer);
    };
  }

  /**
   * Waits out a tentative claim (Redis lost its data less than a lease ago, see {@link
   * RedisScripts}), then makes it real if no owner took the key back meanwhile.
   */
  private Claim confirmLater(RedisEntries e, String token, Duration wait, Duration lease) {
    String answer;
    try {
      Thread.sleep(wait);
      answer =
          redis.eval(
              RedisScripts.CONFIRM,
              ScriptOutputType.VALUE,
              new String[] {e.claim(), e.done()},
              token,
              millis(lease));
    } catch (InterruptedException interrupted) {
      // Shutting down: the tentative claim lapses with its lease; the caller sees the interrupt.
      Thread.currentThread().interrupt();
      return new Claim.Busy();
    } catch (RedisException unanswered) {
      // Not "run it here": by now an owner has likely taken the key back. Waiting on the key
      // trusts whoever holds it for a lease, and finds an outage through the fail-open store.
      return new Claim.Busy();
    }
    return switch (answer.charAt(0)) {
      case 'D' -> new Claim.Completed(transcript(answer.substring(1)));
      case 'O' -> new Claim.Owned(token);
      default -> new Claim.Busy();
    };
  }

  @Override
  public boolean renew(WorkKey key, Claim.Owned owner, Duration lease) {
    RedisEntries e = RedisEntries.of(key);
    Long renewed =
        redis.eval(
            RedisScripts.RENEW,
            ScriptOutputType.INTEGER,
            withEpoch(e.claim(), e.done(), e.owner()),
            owner.token(),
            millis(lease),
            knownEpoch);
    return renewed == 1L;
  }

  /**
   * The keys, and the epoch after them outside a cluster (a script there reaches one slot only).
   */
  private String[] withEpoch(String... keys) {
    if (connections.clustered()) {
      return keys;
    }
    String[] all = Arrays.copyOf(keys, keys.length + 1);
    all[keys.length] = EPOCH;
    return all;
  }

  private void learnEpoch(String id) {
    if (!id.isEmpty()) {
      knownEpoch = id;
    }
  }

  @Override
  public boolean complete(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    RedisEntries e = RedisEntries.of(key);
    StoredTranscript stored = StoredTranscript.of(transcript);
    String message = RedisValues.write(new RedisValues.Ended(owner.token(), stored, null));
    Long completed =
        redis.eval(
            RedisScripts.COMPLETE,
            ScriptOutputType.INTEGER,
            new String[] {e.claim(), e.done(), e.owner()},
            owner.token(),
            RedisValues.write(stored),
            millis(options.ttl()),
            e.channel(),
            message);
    return completed == 1L;
  }

  @Override
  public void fail(WorkKey key, Claim.Owned owner, WorkResult.Refused refusal) {
    RedisEntries e = RedisEntries.of(key);
    RedisValues.StoredRefusal stored = RedisValues.StoredRefusal.of(refusal);
    redis.eval(
        RedisScripts.FAIL,
        ScriptOutputType.INTEGER,
        new String[] {e.claim(), e.failed(), e.owner()},
        owner.token(),
        RedisValues.write(stored),
        millis(options.failureMemory()),
        e.channel(),
        RedisValues.write(new RedisValues.Ended(owner.token(), null, stored)));
  }

  @Override
  public Resolution await(WorkKey key, Duration timeout) throws InterruptedException {
    RedisEntries e = RedisEntries.of(key);
    long deadline = waits.getAsLong() + timeout.toNanos();
    CompletableFuture<String> ended = new CompletableFuture<>();
    subscriptions.listen(e.channel(), ended);
    CompletableFuture<String> listening = ended;
    try {
      // Subscribed before looking: an end published from now on reaches us as a message.
      Look first = look(e);
      if (first.claim() == null || first.done() != null) {
        return first.resolutionWithoutOwner();
      }
      String owner = Objects.requireNonNull(withoutTentativeMark(first.claim()));
      while (true) {
        long remaining = deadline - waits.getAsLong();
        if (remaining <= 0) {
          return new Resolution.Pending();
        }
        try {
          String message =
              listening.get(
                  Math.min(remaining, options.pollEvery().toNanos()), TimeUnit.NANOSECONDS);
          RedisValues.Ended end = RedisValues.read(message, RedisValues.Ended.class);
          if (end.token().equals(owner)) {
            return end.resolution();
          }
          // A late message about an earlier claim on this key: not the work we wait for.
          subscriptions.leave(e.channel(), listening);
          listening = new CompletableFuture<>();
          subscriptions.listen(e.channel(), listening);
        } catch (TimeoutException pollDue) {
          // The backstop for a lost message and for a lease that expired without one.
          Look now = look(e);
          if (!owner.equals(withoutTentativeMark(now.claim())) || now.done() != null) {
            return now.resolutionWithoutOwner();
          }
        } catch (ExecutionException impossible) {
          throw new IllegalStateException("waiters are only ever completed normally", impossible);
        }
      }
    } finally {
      subscriptions.leave(e.channel(), listening);
    }
  }

  /** The entries of one work key, read in one round trip. */
  private record Look(@Nullable String claim, @Nullable String done, @Nullable String failed) {

    /** The answer once the awaited claim is gone (or was never there). */
    Resolution resolutionWithoutOwner() {
      if (done != null) {
        return new Resolution.Completed(transcript(done));
      }
      if (failed != null && claim == null) {
        return new Resolution.Failed(
            RedisValues.read(failed, RedisValues.StoredRefusal.class).refusal());
      }
      return new Resolution.Vacant();
    }
  }

  private Look look(RedisEntries e) {
    List<KeyValue<String, String>> values = redis.mget(e.claim(), e.done(), e.failed());
    return new Look(valueOf(values.get(0)), valueOf(values.get(1)), valueOf(values.get(2)));
  }

  /**
   * A claim's token without the mark of a tentative claim: its owner is the same once confirmed.
   */
  private static @Nullable String withoutTentativeMark(@Nullable String claim) {
    return claim != null && claim.startsWith("T") ? claim.substring(1) : claim;
  }

  private static @Nullable String valueOf(KeyValue<String, String> kv) {
    return kv.hasValue() ? kv.getValue() : null;
  }

  @Override
  public IdempotencyCheck bindIdempotencyKey(String device, String idempotencyKey, WorkKey key) {
    // Hashed with the device's length first, so ("a:b", "c") and ("a", "b:c") stay apart.
    String scoped = DedupStore.idempotencyScope(device, idempotencyKey);
    String entry = "bolo:idem:" + WorkKey.sha256Hex(scoped.getBytes(StandardCharsets.UTF_8));
    String bound =
        redis.eval(
            RedisScripts.BIND,
            ScriptOutputType.VALUE,
            new String[] {entry},
            key.asString(),
            millis(options.ttl()));
    if (bound == null) {
      return IdempotencyCheck.BOUND;
    }
    return bound.equals(key.asString()) ? IdempotencyCheck.SAME_WORK : IdempotencyCheck.OTHER_WORK;
  }

  /** Ready when Redis answers a PING within the command timeout. */
  @Override
  public Readiness readiness() {
    try {
      String pong = redis.ping();
      return "PONG".equals(pong)
          ? Readiness.ok()
          : Readiness.down("redis answered PING with " + pong);
    } catch (RedisException e) {
      return Readiness.down("PING failed: " + e.getMessage());
    }
  }

  /** Closes the connections; later calls do nothing. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      connections.close();
    }
  }

  private static KeptTranscript transcript(String json) {
    return RedisValues.read(json, StoredTranscript.class).transcript();
  }

  private static String millis(Duration d) {
    return Long.toString(Math.max(1, d.toMillis()));
  }
}
