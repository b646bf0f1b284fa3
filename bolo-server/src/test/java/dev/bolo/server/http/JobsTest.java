package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs (PROTOCOL v4) on a real gateway whose engine is a fake provider: 202 at once, one engine
 * call and one charge however many jobs and requests share a note, the same job for the same
 * Idempotency-Key, another device's job unseen, cancellation, the device's bounds, the retention.
 */
class JobsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  FakeProvider provider;
  Gateway gateway;
  final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T10:00:00Z"));

  @BeforeEach
  void start() throws IOException {
    provider = new FakeProvider();
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dir));
    env.put("BOLO_MAX_QUEUED_JOBS_PER_DEVICE", "2");
    env.put("BOLO_JOB_RETENTION", "2d");
    gateway = Gateway.withClock(env, clock);
  }

  @AfterEach
  void stop() {
    provider.release();
    gateway.close();
    provider.close();
  }

  @Test
  void aJobIsAcceptedAtOnceAndSharesOneEngineCallAndOneChargeWithAnotherJobAndARequest()
      throws Exception {
    byte[] note = TestAudio.wav(3000, 91);
    provider.hold();
    Gateway.Reply first = gateway.send(submit(Gateway.TOKEN_A, note, null));
    // Answered while the provider still holds the call: the job was stored, not transcribed.
    assertThat(first.status()).as(first.body()).isEqualTo(202);
    JsonNode job = JSON.readTree(first.body());
    assertThat(job.get("id").asText()).startsWith("job_");
    assertThat(job.get("status").asText()).isIn("queued", "running");
    assertThat(job.get("audio_sha256").asText()).hasSize(64);
    assertThat(job.get("duration_ms").asLong()).isEqualTo(3000);
    Gateway.Reply second = gateway.send(submit(Gateway.TOKEN_A, note, null));
    assertThat(second.status()).isEqualTo(202);
    CompletableFuture<Gateway.Reply> request =
        CompletableFuture.supplyAsync(() -> send(gateway.nativeUpload(Gateway.TOKEN_A, note)));
    Await.until(() -> provider.calls() == 1, () -> "provider calls: " + provider.calls());
    provider.release();
    assertThat(request.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
    JsonNode done = awaitEnd(job.get("id").asText(), Gateway.TOKEN_A);
    assertThat(done.get("status").asText()).isEqualTo("succeeded");
    assertThat(done.at("/result/text").asText()).startsWith("transcript of");
    assertThat(done.at("/progress/seconds_done").asDouble()).isEqualTo(3.0);
    assertThat(
            awaitEnd(JSON.readTree(second.body()).get("id").asText(), Gateway.TOKEN_A)
                .get("status")
                .asText())
        .isEqualTo("succeeded");
    assertThat(provider.calls()).isEqualTo(1);
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.device("alpha").chargedMillis()).isEqualTo(3000);
    }
    // Already transcribed with the same settings: succeeded from the replay, no call, no charge.
    JsonNode replayed =
        awaitEnd(
            JSON.readTree(gateway.send(submit(Gateway.TOKEN_A, note, null)).body())
                .get("id")
                .asText(),
            Gateway.TOKEN_A);
    assertThat(replayed.at("/result/deduplicated").asBoolean()).isTrue();
    assertThat(provider.calls()).isEqualTo(1);
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.device("alpha").chargedMillis()).isEqualTo(3000);
    }
  }

  @Test
  void aJobWhoseProviderWasAwayIsQueuedAgainAndSucceedsOnALaterAttempt() throws Exception {
    provider.enqueue(
        new mockwebserver3.MockResponse.Builder()
            .code(400)
            .body("{\"error\":{\"message\":\"bad\"}}")
            .build());
    String id =
        JSON.readTree(gateway.send(submit(Gateway.TOKEN_A, TestAudio.wav(1000, 150), null)).body())
            .get("id")
            .asText();
    Await.until(() -> provider.calls() >= 1, () -> "provider calls: " + provider.calls());
    JsonNode failed = awaitEnd(id, Gateway.TOKEN_A);
    // The provider refused the note itself: the same again would fail the same.
    assertThat(failed.get("status").asText()).isEqualTo("failed");
    assertThat(failed.at("/error/code").asText()).isEqualTo("upstream_rejected");

    provider.enqueue(new mockwebserver3.MockResponse.Builder().code(503).build());
    int before = provider.calls();
    String again =
        JSON.readTree(gateway.send(submit(Gateway.TOKEN_A, TestAudio.wav(1000, 151), null)).body())
            .get("id")
            .asText();
    Await.until(
        () ->
            provider.calls() > before
                && readTree(send(get("/v1/jobs/" + again, Gateway.TOKEN_A)).body())
                    .get("status")
                    .asText()
                    .equals("queued"),
        () -> "provider calls: " + provider.calls());
    // Its next attempt waits 30 s of the gateway's clock.
    clock.advance(Duration.ofSeconds(31));
    JsonNode done = awaitEnd(again, Gateway.TOKEN_A);
    assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("succeeded");
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(1000);
    }
  }

  @Test
  void theSameIdempotencyKeyIsTheSameJobAndAnotherDeviceSeesNone() throws Exception {
    byte[] note = TestAudio.wav(2000, 92);
    Gateway.Reply first = gateway.send(submit(Gateway.TOKEN_A, note, "key-1"));
    Gateway.Reply again = gateway.send(submit(Gateway.TOKEN_A, note, "key-1"));
    assertThat(again.status()).isEqualTo(202);
    assertThat(again.replayed()).isEqualTo("true");
    String id = JSON.readTree(first.body()).get("id").asText();
    assertThat(JSON.readTree(again.body()).get("id").asText()).isEqualTo(id);
    Gateway.Reply otherNote =
        gateway.send(submit(Gateway.TOKEN_A, TestAudio.wav(2000, 93), "key-1"));
    assertThat(otherNote.status()).isEqualTo(422);
    awaitEnd(id, Gateway.TOKEN_A);
    assertThat(gateway.send(get("/v1/jobs/" + id, Gateway.TOKEN_B)).status()).isEqualTo(404);
    assertThat(gateway.send(delete("/v1/jobs/" + id, Gateway.TOKEN_B)).status()).isEqualTo(404);
    JsonNode mine = JSON.readTree(gateway.send(get("/v1/jobs", Gateway.TOKEN_A)).body());
    assertThat(mine.get("data")).hasSize(1);
    JsonNode theirs = JSON.readTree(gateway.send(get("/v1/jobs", Gateway.TOKEN_B)).body());
    assertThat(theirs.get("data")).isEmpty();
    assertThat(provider.calls()).isEqualTo(1);
  }

  @Test
  void aQueuedJobCancelledIsNeverRunNorChargedAndARunningOneStaysCancelled() throws Exception {
    provider.hold();
    // Four jobs take the instance's four runners; the fifth, another device's, waits its turn.
    List<String> running = new ArrayList<>();
    for (String token : List.of(Gateway.TOKEN_A, Gateway.TOKEN_B)) {
      for (int i = 0; i < 2; i++) {
        running.add(
            JSON.readTree(
                    gateway
                        .send(submit(token, TestAudio.wav(1000, 110 + running.size()), null))
                        .body())
                .get("id")
                .asText());
      }
    }
    Await.until(() -> provider.calls() == 4, () -> "provider calls: " + provider.calls());
    String charlie;
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      charlie = ledger.add("charlie");
    }
    String queued =
        JSON.readTree(gateway.send(submit(charlie, TestAudio.wav(2000, 120), null)).body())
            .get("id")
            .asText();
    assertThat(
            JSON.readTree(gateway.send(get("/v1/jobs/" + queued, charlie)).body())
                .get("status")
                .asText())
        .isEqualTo("queued");
    Gateway.Reply cancelled = gateway.send(delete("/v1/jobs/" + queued, charlie));
    assertThat(cancelled.status()).isEqualTo(200);
    assertThat(JSON.readTree(cancelled.body()).get("status").asText()).isEqualTo("cancelled");
    Gateway.Reply cancelledRunning =
        gateway.send(delete("/v1/jobs/" + running.getFirst(), Gateway.TOKEN_A));
    assertThat(JSON.readTree(cancelledRunning.body()).get("status").asText())
        .isEqualTo("cancelled");
    provider.release();
    for (String id : running.subList(1, running.size())) {
      awaitEnd(id, id.equals(running.get(1)) ? Gateway.TOKEN_A : Gateway.TOKEN_B);
    }
    assertThat(
            JSON.readTree(
                    gateway.send(get("/v1/jobs/" + running.getFirst(), Gateway.TOKEN_A)).body())
                .get("status")
                .asText())
        .isEqualTo("cancelled");
    assertThat(provider.calls()).isEqualTo(4);
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.chargedMillis("charlie")).isZero();
    }
    JsonNode listed = JSON.readTree(gateway.send(get("/v1/jobs?status=cancelled", charlie)).body());
    assertThat(listed.get("data")).hasSize(1);
  }

  @Test
  void aDeviceWithTwoJobsWaitingIsToldToWaitAndAnotherDeviceIsNot() throws Exception {
    provider.hold();
    for (int i = 0; i < 2; i++) {
      assertThat(gateway.send(submit(Gateway.TOKEN_A, TestAudio.wav(1000, 95 + i), null)).status())
          .isEqualTo(202);
    }
    Gateway.Reply third = gateway.send(submit(Gateway.TOKEN_A, TestAudio.wav(1000, 97), null));
    assertThat(third.status()).as(third.body()).isEqualTo(429);
    assertThat(third.retryAfter()).isEqualTo("30");
    assertThat(JSON.readTree(third.body()).get("code").asText()).isEqualTo("rate_limited");
    assertThat(gateway.send(submit(Gateway.TOKEN_B, TestAudio.wav(1000, 98), null)).status())
        .isEqualTo(202);
  }

  @Test
  void jobsGoOnceTheirRetentionHasPassed() throws Exception {
    String id =
        JSON.readTree(gateway.send(submit(Gateway.TOKEN_A, TestAudio.wav(1000, 99), null)).body())
            .get("id")
            .asText();
    awaitEnd(id, Gateway.TOKEN_A);
    clock.advance(Duration.ofDays(2).minusMinutes(1));
    assertThat(gateway.app().jobs().sweep()).isZero();
    clock.advance(Duration.ofMinutes(2));
    assertThat(gateway.app().jobs().sweep()).isEqualTo(1);
    assertThat(gateway.send(get("/v1/jobs/" + id, Gateway.TOKEN_A)).status()).isEqualTo(404);
  }

  @Test
  void badMetadataAndAWebhookUrlThePolicyRefusesAre400() throws Exception {
    byte[] note = TestAudio.wav(1000, 100);
    Gateway.Reply metadata = gateway.send(submit(Gateway.TOKEN_A, note, null, "metadata", "[1,2]"));
    assertThat(metadata.status()).isEqualTo(400);
    assertThat(JSON.readTree(metadata.body()).get("code").asText()).isEqualTo("invalid_parameter");
    Gateway.Reply url =
        gateway.send(submit(Gateway.TOKEN_A, note, null, "webhook_url", "https://example.com/h"));
    assertThat(url.status()).isEqualTo(400);
    assertThat(JSON.readTree(url.body()).get("error").asText()).contains("webhook");
    assertThat(gateway.send(get("/v1/jobs", Gateway.TOKEN_A)).body()).contains("\"data\":[]");
  }

  @Test
  void aJobForAFinishedResumableUploadSucceedsAtOnceFromItsReplay() throws Exception {
    byte[] note = TestAudio.wav(2000, 140);
    Request create =
        new Request.Builder()
            .url(gateway.url("/v1/uploads"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .header("Tus-Resumable", "1.0.0")
            .header("Upload-Length", Integer.toString(note.length))
            .post(RequestBody.create(note, MediaType.get("application/offset+octet-stream")))
            .build();
    String location;
    try (okhttp3.Response response = gateway.client().newCall(create).execute()) {
      assertThat(response.code()).isEqualTo(201);
      location = java.util.Objects.requireNonNull(response.header("Location"));
    }
    assertThat(gateway.send(get(location + "/transcription?wait=30", Gateway.TOKEN_A)).status())
        .isEqualTo(200);
    String uploadId = location.substring(location.lastIndexOf('/') + 1);
    String body = "{\"upload_id\":\"" + uploadId + "\",\"metadata\":{\"from\":\"tus\"}}";

    Gateway.Reply job = gateway.send(json("/v1/jobs", Gateway.TOKEN_A, body));
    Gateway.Reply theirs = gateway.send(json("/v1/jobs", Gateway.TOKEN_B, body));

    assertThat(job.status()).as(job.body()).isEqualTo(202);
    JsonNode made = JSON.readTree(job.body());
    assertThat(made.get("status").asText()).isEqualTo("succeeded");
    assertThat(made.at("/result/deduplicated").asBoolean()).isTrue();
    assertThat(made.at("/metadata/from").asText()).isEqualTo("tus");
    assertThat(theirs.status()).isEqualTo(404);
    assertThat(provider.calls()).isEqualTo(1);
    try (LedgerProbe ledger = LedgerProbe.open(dir, gateway)) {
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(2000);
    }
  }

  private Request json(String path, String token, String body) {
    return new Request.Builder()
        .url(gateway.url(path))
        .header("Authorization", "Bearer " + token)
        .post(RequestBody.create(body, MediaType.get("application/json")))
        .build();
  }

  private JsonNode awaitEnd(String id, String token) throws Exception {
    JsonNode[] last = new JsonNode[1];
    Await.until(
        Duration.ofSeconds(60),
        () -> {
          last[0] = readTree(send(get("/v1/jobs/" + id, token)).body());
          String status = last[0].path("status").asText();
          return status.equals("succeeded")
              || status.equals("failed")
              || status.equals("cancelled");
        },
        () -> "job " + last[0]);
    return last[0];
  }

  private Request submit(String token, byte[] note, @Nullable String key, String... fields) {
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                "audio", "note.wav", RequestBody.create(note, MediaType.get("audio/wav")));
    for (int i = 0; i + 1 < fields.length; i += 2) {
      form.addFormDataPart(fields[i], fields[i + 1]);
    }
    Request.Builder request =
        new Request.Builder()
            .url(gateway.url("/v1/jobs"))
            .header("Authorization", "Bearer " + token)
            .post(form.build());
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return request.build();
  }

  private Request get(String path, String token) {
    return new Request.Builder()
        .url(gateway.url(path))
        .header("Authorization", "Bearer " + token)
        .build();
  }

  private Request delete(String path, String token) {
    return new Request.Builder()
        .url(gateway.url(path))
        .header("Authorization", "Bearer " + token)
        .delete()
        .build();
  }

  private Gateway.Reply send(Request request) {
    try {
      return gateway.send(request);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static JsonNode readTree(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
