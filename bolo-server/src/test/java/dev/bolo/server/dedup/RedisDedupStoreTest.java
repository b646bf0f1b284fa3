package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import dev.bolo.testkit.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store contract on a real Redis (embedded binaries on loopback), with real time: short leases
 * and TTLs whose expiry the tests await with a bound. Each test uses fresh work keys.
 */
class RedisDedupStoreTest extends RedisStoreContract {

  private static final Logger log = LoggerFactory.getLogger(RedisDedupStoreTest.class);

  private static final EmbeddedRedis redis = EmbeddedRedis.notStarted();

  @BeforeAll
  static void startRedis() {
    redis.startAgain();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  static RedisDedupStore.Options options(String url, Duration ttl) {
    return options(RedisEndpoint.parse(url), ttl);
  }

  static RedisDedupStore.Options options(RedisEndpoint endpoint, Duration ttl) {
    return new RedisDedupStore.Options(
        endpoint,
        ttl,
        Duration.ofSeconds(2),
        Duration.ofMillis(100),
        InMemoryDedupStore.FAILURE_MEMORY);
  }

  @Test
  void finishedTranscriptsSurviveAGatewayRestart() {
    DedupStore before = store(LONG_TTL);
    WorkKey key = newKey();
    KeptTranscript transcript = transcriptFor(key, "still here after the restart");
    assertThat(before.complete(key, owned(before.claim(key, LONG_LEASE)), transcript)).isTrue();
    before.close();

    DedupStore after = store(LONG_TTL);

    assertThat(after.claim(key, LONG_LEASE)).isEqualTo(new Claim.Completed(transcript));
  }

  @Test
  void aWaiterOnOneInstanceWakesWhenAnotherInstanceCompletes() {
    DedupStore owner = store(LONG_TTL);
    DedupStore waiting = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));
    assertThat(waiting.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
    Future<Resolution> waiter = threads.submit(() -> waiting.await(key, PATIENCE));

    KeptTranscript transcript = transcriptFor(key, "done on the other instance");
    assertThat(owner.complete(key, claim, transcript)).isTrue();

    assertThat(waitFor(waiter)).isEqualTo(new Resolution.Completed(transcript));
  }

  @Test
  void aFailureOnOneInstanceReachesWaitersOnAnother() {
    DedupStore owner = store(LONG_TTL);
    DedupStore waiting = store(LONG_TTL);
    WorkKey key = newKey();
    Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));
    List<Future<Resolution>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiters.add(threads.submit(() -> waiting.await(key, PATIENCE)));
    }
    WorkResult.Refused refusal =
        new WorkResult.Refused(Problem.UPSTREAM_TIMEOUT, "no answer in 30 s");

    owner.fail(key, claim, refusal);

    for (Future<Resolution> waiter : waiters) {
      assertThat(waitFor(waiter)).isEqualTo(new Resolution.Failed(refusal));
    }
    assertThat(owned(waiting.claim(key, LONG_LEASE))).isNotNull();
  }

  /**
   * Measures how long a duplicate waiting on one instance takes to wake after the owner on another
   * instance starts completing (loopback). The waiter polls once an hour, longer than it waits, so
   * only the published message can wake it with the result; the figures are logged, not asserted.
   */
  @Test
  void waitersOnAnotherInstanceWakeOnThePublishedMessage() throws Exception {
    DedupStore owner = store(LONG_TTL);
    RedisDedupStore.Options slowPoll =
        new RedisDedupStore.Options(
            RedisEndpoint.parse(redis.url()),
            LONG_TTL,
            Duration.ofSeconds(2),
            Duration.ofHours(1),
            InMemoryDedupStore.FAILURE_MEMORY);
    DedupStore waiting =
        closeAfterTest(RedisDedupStore.connect(slowPoll, System::nanoTime, () -> {}));
    RedisClient observer = RedisClient.create(redis.url());
    int rounds = 200;
    long[] wakeUpNanos = new long[rounds];
    try (StatefulRedisConnection<String, String> connection = observer.connect()) {
      for (int round = 0; round < rounds; round++) {
        WorkKey key = newKey();
        String channel = "bolo:{" + key.asString() + "}:end";
        Claim.Owned claim = owned(owner.claim(key, LONG_LEASE));
        Future<long[]> waiter =
            threads.submit(
                () -> {
                  Resolution resolution = waiting.await(key, PATIENCE);
                  long woke = System.nanoTime();
                  assertThat(resolution).isInstanceOf(Resolution.Completed.class);
                  return new long[] {woke};
                });
        eventually(
            "the waiter subscribed",
            () -> connection.sync().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);

        long completing = System.nanoTime();
        assertThat(owner.complete(key, claim, transcriptFor(key, "round " + round))).isTrue();

        wakeUpNanos[round] = waitFor(waiter)[0] - completing;
      }
    } finally {
      observer.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    Arrays.sort(wakeUpNanos);
    log.info(
        "cross-instance wake-up after complete() over {} rounds on loopback: median {} µs, p99 {}"
            + " µs, max {} µs",
        rounds,
        wakeUpNanos[rounds / 2] / 1_000,
        wakeUpNanos[(int) Math.ceil(rounds * 0.99) - 1] / 1_000,
        wakeUpNanos[rounds - 1] / 1_000);
  }

  @Test
  void aBusyClaimNamesTheOwnersSpanUntilTheWorkEnds() {
    DedupStore owner = store(LONG_TTL);
    DedupStore other = store(LONG_TTL);
    WorkKey key = newKey();
    SpanContext resolution =
        SpanContext.create(
            "0af7651916cd43dd8448eb211c80319c",
            "b7ad6b7169203331",
            TraceFlags.getSampled(),
            TraceState.builder().put("vendor", "not for the store").build());
    Claim.Owned claim;
    try (Scope traced = Context.root().with(Span.wrap(resolution)).makeCurrent()) {
      claim = owned(owner.claim(key, LONG_LEASE));
    }

    Claim busy = other.claim(key, LONG_LEASE);

    assertThat(busy).isInstanceOf(Claim.Busy.class);
    SpanContext named = ((Claim.Busy) busy).owner();
    assertThat(named.getTraceId()).isEqualTo(resolution.getTraceId());
    assertThat(named.getSpanId()).isEqualTo(resolution.getSpanId());
    assertThat(named.isSampled()).isTrue();
    assertThat(named.getTraceState().isEmpty()).as("no trace state kept").isTrue();
    try (RawRedis raw = new RawRedis()) {
      // The claim itself is the token alone, as instances of earlier versions read it.
      assertThat(raw.get(key, "claim")).isEqualTo(claim.token());
      assertThat(raw.get(key, "owner")).hasSize(55);
      owner.fail(key, claim, new WorkResult.Refused(Problem.UPSTREAM_TIMEOUT, "no answer"));
      assertThat(raw.get(key, "owner")).as("the span ends with the claim").isNull();
    }
  }

  @Test
  void aClaimOfAnEarlierVersionIsBusyWithoutASpanAndAnOwnerEntryNotATraceparentIsNotRead() {
    DedupStore store = store(LONG_TTL);
    WorkKey key = newKey();
    try (RawRedis raw = new RawRedis()) {
      // An instance of an earlier version claims with its token and keeps no span.
      raw.set(key, "claim", "token-of-an-earlier-version");
      assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());

      raw.set(key, "owner", "00-" + "a".repeat(300));
      assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
      raw.set(key, "owner", "not-a-traceparent-but-fifty-five-characters-long-as-one");
      assertThat(store.claim(key, LONG_LEASE)).isEqualTo(new Claim.Busy());
    }
  }

  @Test
  void anOwnerThatTakesItsClaimBackFromATentativeOneLeavesNoOtherClaimantsSpanForOthers()
      throws Exception {
    DedupStore owner = store(LONG_TTL);
    DedupStore tentative = store(LONG_TTL);
    DedupStore other = store(LONG_TTL);
    WorkKey key = newKey();
    SpanContext owners = span("b7ad6b7169203331");
    SpanContext tentatives = span("c8be7c827a314442");
    Claim.Owned claim;
    try (Scope traced = Context.root().with(Span.wrap(owners)).makeCurrent()) {
      claim = owned(owner.claim(key, LONG_LEASE));
    }
    try (RawRedis raw = new RawRedis()) {
      // Redis restarted without persistence: the epoch, the claim and its span are gone.
      raw.delete(RedisDedupStore.EPOCH);
      raw.delete("bolo:{" + key.asString() + "}:claim");
      raw.delete("bolo:{" + key.asString() + "}:owner");
      // Another instance claims the vacant key: tentative for its short lease.
      Future<Claim> claimed =
          threads.submit(
              () -> {
                try (Scope traced = Context.root().with(Span.wrap(tentatives)).makeCurrent()) {
                  return tentative.claim(key, shortLease());
                }
              });
      Await.until(
          () -> String.valueOf(raw.get(key, "claim")).startsWith("T"),
          () -> "claim: " + raw.get(key, "claim"));
      // The owner's renewal takes its claim back, and the tentative claimant loses.
      assertThat(owner.renew(key, claim, LONG_LEASE)).isTrue();
      assertThat(waitFor(claimed)).isInstanceOf(Claim.Busy.class);
    }

    Claim busy = other.claim(key, LONG_LEASE);

    assertThat(busy).isInstanceOf(Claim.Busy.class);
    assertThat(((Claim.Busy) busy).owner().getSpanId())
        .as("not the span of the claimant that lost: its work never runs")
        .isNotEqualTo(tentatives.getSpanId());
    // The owner's own span went with Redis's data: copies then link to no span rather than a wrong
    // one (docs/operations/tracing.md).
    assertThat(((Claim.Busy) busy).owner().isValid()).isFalse();
  }

  private static SpanContext span(String spanId) {
    return SpanContext.create(
        "0af7651916cd43dd8448eb211c80319c",
        spanId,
        TraceFlags.getSampled(),
        TraceState.getDefault());
  }

  /** The test's own connection to Redis, to read and write a key's entries as they are stored. */
  private static final class RawRedis implements AutoCloseable {
    private final RedisClient client = RedisClient.create(redis.url());
    private final StatefulRedisConnection<String, String> connection = client.connect();

    @Nullable String get(WorkKey key, String entry) {
      return connection.sync().get("bolo:{" + key.asString() + "}:" + entry);
    }

    void delete(String name) {
      connection.sync().del(name);
    }

    void set(WorkKey key, String entry, String value) {
      connection
          .sync()
          .set("bolo:{" + key.asString() + "}:" + entry, value, SetArgs.Builder.px(60_000));
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void aMalformedUrlIsRefusedAtOnce() {
    assertThatThrownBy(() -> RedisEndpoint.parse("redis://a:1,,b:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty node");
  }

  @Test
  void aCommaSeparatedUrlNamesTheSeedNodesOfACluster() {
    RedisEndpoint endpoint = RedisEndpoint.parse("redis://10.0.0.1:7000, 10.0.0.2:7001");

    assertThat(endpoint.cluster()).isTrue();
    assertThat(endpoint.describe()).isEqualTo("cluster 10.0.0.1:7000,10.0.0.2:7001");
    assertThat(RedisEndpoint.parse("redis://127.0.0.1:6379").cluster()).isFalse();
  }

  @Override
  String redisUrl() {
    return redis.url();
  }
}
