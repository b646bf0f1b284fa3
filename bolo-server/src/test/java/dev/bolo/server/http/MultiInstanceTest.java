package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.UsageQuery;
import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.testkit.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several gateway instances behind a load balancer, as "Running several instances" describes them:
 * one Redis for de-duplication and one PostgreSQL ledger, both real servers ({@link
 * ClusterExtension}), and real gateways on loopback, each with its own data directory (spool).
 */
class MultiInstanceTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Short, so that the claim of a killed owner lapses within seconds. */
  private static final Duration LEASE = Duration.ofSeconds(4);

  /** Upper bound for anything awaited here; a healthy run needs a fraction of it. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private static final String UPLOAD = "/v1/transcriptions";

  @RegisterExtension
  final ClusterExtension cluster =
      new ClusterExtension(Map.of("BOLO_LEASE", LEASE.toMillis() + "ms"));

  private final ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor();
  private FakeProvider provider;

  @BeforeEach
  void useTheClustersProvider() {
    provider = cluster.provider();
  }

  @AfterEach
  void stopPhones() {
    // The cluster closes its instances and services after this.
    phones.shutdownNow();
  }

  @Test
  void threeInstancesTranscribeTwentyFourConcurrentCopiesOnceAndChargeThemOnce() throws Exception {
    // All three start at once, so they migrate the empty ledger database concurrently.
    List<Gateway> gateways = startTogether("a", "b", "c");
    byte[] note = TestAudio.wav(1500, 61);
    provider.enqueue(transcript("one note, transcribed once")).hold();
    int copies = 24;
    CountDownLatch ready = new CountDownLatch(copies);
    List<Future<Gateway.Reply>> replies = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      // Round robin, as a load balancer spreads a phone's resends.
      Gateway gateway = gateways.get(i % gateways.size());
      replies.add(
          phones.submit(
              () -> {
                ready.countDown();
                ready.await();
                return gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
              }));
    }
    awaitCalls(1);
    provider.release();

    List<String> texts = new ArrayList<>();
    int replayed = 0;
    for (Future<Gateway.Reply> reply : replies) {
      JsonNode body = ok(reply.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
      texts.add(body.get("text").asText());
      replayed += body.get("deduplicated").asBoolean() ? 1 : 0;
    }
    assertThat(provider.calls()).isEqualTo(1);
    assertThat(texts).hasSize(copies).containsOnly("one note, transcribed once");
    assertThat(replayed).isEqualTo(copies - 1);
    for (Gateway gateway : gateways) {
      assertThat(answered(gateway)).as("requests answered by one instance").isEqualTo(8);
    }
    try (DurableLedger ledger = cluster.openLedger()) {
      assertThat(chargedMillis(ledger, "alpha")).isEqualTo(1500);
      assertThat(usage(ledger, "alpha", copies))
          .isEqualTo(
              new DeviceUsage("alpha", copies, 1, copies - 1, 0, 1500, (copies - 1) * 1500L));
    }
  }

  @Test
  void aResendToAnotherInstanceCompletesWhenTheOwnerIsKilledMidCall() throws Exception {
    Gateway survivor = cluster.start("survivor");
    GatewayProcess owner =
        cluster.closeAfterTest(
            GatewayProcess.start(
                cluster.environment("owner"),
                cluster.dataDir("owner").resolveSibling("owner.log")));
    byte[] note = TestAudio.wav(2000, 62);
    provider.hold();
    Future<Gateway.Reply> first =
        phones.submit(
            () ->
                survivor.send(at(owner.url(UPLOAD), survivor.nativeUpload(Gateway.TOKEN_A, note))));
    awaitCalls(1);
    String claimKey;
    String ownersClaim;
    try (RedisClient client = RedisClient.create(cluster.redis().url());
        StatefulRedisConnection<String, String> redis = client.connect()) {
      List<String> claims = redis.sync().keys("bolo:{*}:claim");
      assertThat(claims).as("the owner's claim").hasSize(1);
      claimKey = claims.getFirst();
      ownersClaim = redis.sync().get(claimKey);
    }
    // What the claim's entry held when the resend's call reached the provider.
    CompletableFuture<String> claimAtResend = new CompletableFuture<>();
    provider.answerWith(
        request -> {
          if (provider.calls() == 2) {
            try (RedisClient client = RedisClient.create(cluster.redis().url());
                StatefulRedisConnection<String, String> redis = client.connect()) {
              claimAtResend.complete(String.valueOf(redis.sync().get(claimKey)));
            }
          }
          return new MockResponse.Builder()
              .code(200)
              .setHeader("Content-Type", "application/json")
              .body("{\"text\":\"transcript of the resend\"}")
              .build();
        });

    owner.kill();

    assertThatThrownBy(() -> first.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IOException.class);
    provider.release();
    JsonNode resend = ok(survivor.send(survivor.nativeUpload(Gateway.TOKEN_A, note)));

    assertThat(resend.get("text").asText()).startsWith("transcript of ");
    assertThat(resend.get("deduplicated").asBoolean()).as("ran afresh").isFalse();
    assertThat(provider.calls()).as("the killed call and the resend's").isEqualTo(2);
    // The resend ran only once the dead owner's claim had lapsed in Redis (its lease ran out
    // unrenewed): it waited for it rather than run at once beside it.
    assertThat(claimAtResend.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .as("the claim when the resend reached the provider")
        .isNotEqualTo(ownersClaim);
    try (DurableLedger ledger = cluster.openLedger()) {
      assertThat(chargedMillis(ledger, "alpha")).isEqualTo(2000);
      assertThat(usage(ledger, "alpha", 1).chargedMillis()).isEqualTo(2000);
    }
  }

  @Test
  void fiftyJobsSubmittedToTwoInstancesAreEachRunOnceAndToldOnce() throws Exception {
    List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
    Jobs.Webhooks webhooks =
        new Jobs.Webhooks(
            url -> {},
            (url, message) -> {
              told.add(message.id() + " " + jobOf(message.body()));
              return new WebhookSender.Delivery(WebhookSender.Outcome.DELIVERED, 204, "delivered");
            },
            device -> List.of("whsec_" + device));
    List<Gateway> instances =
        List.of(
            cluster.closeAfterTest(
                Gateway.withWebhooks(cluster.environment("a"), Clock.systemUTC(), webhooks)),
            cluster.closeAfterTest(
                Gateway.withWebhooks(cluster.environment("b"), Clock.systemUTC(), webhooks)));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Gateway instance = instances.get(i % 2);
      Gateway.Reply reply =
          instance.send(
              Gateway.nativeUploadRequest(
                  instance.url("/v1/jobs"),
                  Gateway.TOKEN_A,
                  TestAudio.wav(200, 500 + i),
                  "webhook_url",
                  "https://receiver.test/hook"));
      assertThat(reply.status()).as(reply.body()).isEqualTo(202);
      ids.add(JSON.readTree(reply.body()).get("id").asText());
    }

    Await.until(Duration.ofMinutes(2), () -> told.size() >= 50, () -> told.size() + " of 50 told");

    try (DurableLedger ledger = cluster.openLedger()) {
      for (String id : ids) {
        // Taken by one instance, once: a second take would count a second attempt.
        assertThat(ledger.jobs().find(id))
            .hasValueSatisfying(
                job -> {
                  assertThat(job.status()).as(id).isEqualTo(JobStatus.SUCCEEDED);
                  assertThat(job.attempts()).as(id).isEqualTo(1);
                });
      }
      assertThat(chargedMillis(ledger, "alpha")).isEqualTo(50 * 200);
    }
    assertThat(provider.calls()).isEqualTo(50);
    assertThat(told).hasSize(50);
    assertThat(told.stream().map(line -> line.split(" ")[1]))
        .containsExactlyInAnyOrderElementsOf(ids);
  }

  private static String jobOf(byte[] event) {
    try {
      return JSON.readTree(event).at("/data/id").asText();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aRestartedInstanceReplaysTheResultFromRedisWithoutCallingTheProvider() throws Exception {
    Gateway before = cluster.start("a");
    byte[] note = TestAudio.wav(1200, 63);
    JsonNode first = ok(before.send(before.nativeUpload(Gateway.TOKEN_A, note)));
    assertThat(provider.calls()).isEqualTo(1);

    cluster.stop(before);
    Gateway after = cluster.start("a");

    Gateway.Reply resend = after.send(after.nativeUpload(Gateway.TOKEN_A, note));
    JsonNode body = ok(resend);
    assertThat(body.get("deduplicated").asBoolean()).isTrue();
    assertThat(resend.replayed()).isEqualTo("true");
    assertThat(body.get("text").asText()).isEqualTo(first.get("text").asText());
    assertThat(provider.calls()).isEqualTo(1);
    try (DurableLedger ledger = cluster.openLedger()) {
      assertThat(chargedMillis(ledger, "alpha")).isEqualTo(1200);
    }
  }

  @Test
  void uploadsSucceedWhileRedisIsDownAndDeduplicationAcrossInstancesResumesWhenItReturns()
      throws Exception {
    Gateway a = cluster.start("a");
    Gateway b = cluster.start("b");

    cluster.redis().stop();

    byte[] duringOutage = TestAudio.wav(1000, 64);
    JsonNode onA = ok(a.send(a.nativeUpload(Gateway.TOKEN_A, duringOutage)));
    JsonNode onB = ok(b.send(b.nativeUpload(Gateway.TOKEN_A, duringOutage)));
    assertThat(onA.get("deduplicated").asBoolean()).isFalse();
    assertThat(onB.get("deduplicated").asBoolean()).as("no cross-instance dedup").isFalse();
    assertThat(provider.calls()).isEqualTo(2);
    for (Gateway gateway : List.of(a, b)) {
      // Readiness is checked in the background: the outage shows within seconds.
      Await.until(
          PATIENCE, "readiness shows the outage", () -> storeReadiness(gateway).equals("degraded"));
      Gateway.Reply ready = gateway.send(get(gateway, "/readyz"));
      assertThat(ready.status()).as("a degraded store still serves").isEqualTo(200);
      assertThat(JSON.readTree(ready.body()).path("status").asText()).isEqualTo("degraded");
      assertThat(gateway.send(get(gateway, "/metrics")).body())
          .contains("bolo_dedup_store_degraded 1.0");
    }

    cluster.redis().startAgain();

    Await.until(
        PATIENCE,
        "both instances use Redis again",
        () -> storeReadiness(a).equals("ready") && storeReadiness(b).equals("ready"));
    byte[] afterOutage = TestAudio.wav(1000, 65);
    provider.hold();
    Future<Gateway.Reply> toA = phones.submit(send(a, afterOutage));
    awaitCalls(3);
    Future<Gateway.Reply> toB = phones.submit(send(b, afterOutage));
    provider.release();
    JsonNode fromA = ok(toA.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    JsonNode fromB = ok(toB.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    assertThat(provider.calls()).isEqualTo(3);
    assertThat(fromB.get("deduplicated").asBoolean()).isTrue();
    assertThat(fromB.get("text").asText()).isEqualTo(fromA.get("text").asText());
    try (DurableLedger ledger = cluster.openLedger()) {
      // Failing open costs an extra provider call for the note sent during the outage, but the
      // ledger charges each work once: one charge per note.
      assertThat(chargedMillis(ledger, "alpha")).isEqualTo(2000);
    }
  }

  @Test
  void theRateLimitIsCountedOnceForTheWholeDeploymentNotOncePerInstance() throws Exception {
    List<Gateway> gateways = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      Map<String, String> env = cluster.environment(name);
      env.put("BOLO_RATE_LIMIT_PER_MINUTE", "10");
      Gateway gateway = cluster.closeAfterTest(Gateway.withEnvironment(env));
      gateways.add(gateway);
    }
    byte[] note = TestAudio.wav(500, 66);

    Map<Integer, Integer> statuses = new java.util.TreeMap<>();
    for (int i = 0; i < 30; i++) {
      Gateway gateway = gateways.get(i % gateways.size());
      statuses.merge(
          gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note)).status(), 1, Integer::sum);
    }

    // Ten at once (the bucket's burst), plus the one token that arrives every six seconds should
    // this loop take that long; per instance it would have been thirty.
    int allowed = statuses.getOrDefault(200, 0);
    assertThat(allowed).isBetween(10, 11);
    assertThat(statuses).isEqualTo(Map.of(200, allowed, 429, 30 - allowed));
  }

  private List<Gateway> startTogether(String... names) throws Exception {
    CountDownLatch ready = new CountDownLatch(names.length);
    List<Future<Gateway>> starting = new ArrayList<>();
    for (String name : names) {
      Map<String, String> env = cluster.environment(name);
      starting.add(
          phones.submit(
              () -> {
                ready.countDown();
                ready.await();
                return Gateway.withEnvironment(env);
              }));
    }
    List<Gateway> gateways = new ArrayList<>();
    for (Future<Gateway> gateway : starting) {
      gateways.add(gateway.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
      cluster.closeAfterTest(gateways.getLast());
    }
    return gateways;
  }

  private static long chargedMillis(DurableLedger ledger, String device) {
    return ledger.devices().stream()
        .filter(d -> d.name().equals(device))
        .findFirst()
        .map(DeviceInfo::chargedMillis)
        .orElseThrow(() -> new AssertionError("no device " + device));
  }

  /**
   * The device's usage once {@code requests} of its requests are in: each instance writes its usage
   * rows in batches, up to a moment after its answers, and this reader flushes only its own.
   */
  private static DeviceUsage usage(DurableLedger ledger, String device, long requests)
      throws InterruptedException {
    UsageQuery query = new UsageQuery(device, null);
    Await.until(
        () -> ledger.usage(query).stream().anyMatch(u -> u.requests() >= requests),
        () -> "usage of " + device + ": " + ledger.usage(query));
    List<DeviceUsage> usage = ledger.usage(query);
    assertThat(usage).hasSize(1);
    return usage.getFirst();
  }

  /** Transcription requests this instance answered, whatever their outcome. */
  private static long answered(Gateway gateway) {
    return (long)
        gateway.app().metrics().find("bolo_transcriptions_total").counters().stream()
            .mapToDouble(Counter::count)
            .sum();
  }

  private static Callable<Gateway.Reply> send(Gateway gateway, byte[] note) {
    return () -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
  }

  private static MockResponse transcript(String text) {
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body("{\"text\":\"" + text + "\"}")
        .build();
  }

  private static Request at(String url, Request request) {
    return request.newBuilder().url(url).build();
  }

  private static Request get(Gateway gateway, String path) {
    return new Request.Builder().url(gateway.url(path)).build();
  }

  private static String storeReadiness(Gateway gateway) {
    try {
      return storeReadiness(gateway.send(get(gateway, "/readyz")));
    } catch (IOException e) {
      throw new AssertionError("readiness not served", e);
    }
  }

  private static String storeReadiness(Gateway.Reply ready) {
    try {
      return JSON.readTree(ready.body()).path("components").path("store").asText();
    } catch (IOException e) {
      throw new AssertionError("readiness is not JSON: " + ready.body(), e);
    }
  }

  private static JsonNode ok(Gateway.Reply reply) throws IOException {
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private void awaitCalls(int calls) throws InterruptedException {
    Await.until(PATIENCE, calls + " provider call(s)", () -> provider.calls() >= calls);
    assertThat(provider.calls()).isEqualTo(calls);
  }
}
