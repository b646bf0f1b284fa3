package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Admission by count on a real gateway ({@code BOLO_MAX_CONCURRENT_REQUESTS}, {@code
 * BOLO_REQUEST_QUEUE_WAIT}): an upload over the limit waits its turn and is then served; one that
 * waits too long, or may not wait at all, is answered 503 with {@code Retry-After} in its own
 * endpoint's shape without reaching the provider; probes and metrics never wait; a drain answers
 * the waiting ones.
 */
class RequestAdmissionTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of("BOLO_MAX_CONCURRENT_REQUESTS", "1"));

  @Test
  void anUploadOverTheLimitWaitsForItsTurnWhileProbesPassAndIsThenServed() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_REQUEST_QUEUE_WAIT", "60s"));
    CompletableFuture<Gateway.Reply> first = oneNoteHeldAtTheProvider(gateway);

    CompletableFuture<Gateway.Reply> second = aSecondNoteWaiting(gateway);
    assertThat(second).as("the second waits while the first is served").isNotDone();
    assertThat(get(gateway, "/healthz").status()).isEqualTo(200);
    assertThat(get(gateway, "/metrics").body()).contains("bolo_requests_waiting 1.0");
    // The probes were answered while the one place stayed taken: they did not wait for it.
    assertThat(first).as("still held at the provider").isNotDone();
    assertThat(second).as("still waiting its turn").isNotDone();
    assertThat(fixture.provider().calls()).isEqualTo(1);

    fixture.provider().release();
    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    Gateway.Reply served = second.get(30, TimeUnit.SECONDS);
    assertThat(served.status()).as(served.body()).isEqualTo(200);
    assertThat(fixture.provider().calls()).isEqualTo(2);
    assertThat(waiting(gateway)).isZero();
    assertThat(turnedAway(gateway)).isZero();
  }

  /**
   * A second upload waits its turn twice as long as the idle timeout, then must be served: the wait
   * is the gateway's, so cutting it (408 "too slow", which a phone does not resend) would lose the
   * note.
   */
  @Test
  void anUploadThatWaitsLongerThanTheIdleTimeoutIsServedNotCutAsIdle() throws Exception {
    Gateway gateway =
        fixture.start(Map.of("BOLO_REQUEST_QUEUE_WAIT", "60s", "BOLO_IDLE_TIMEOUT", "1s"));
    CompletableFuture<Gateway.Reply> first = oneNoteHeldAtTheProvider(gateway);
    // As curl sends a large note: the body follows only once the gateway asks for it.
    CompletableFuture<Gateway.Reply> second =
        aSecondNoteWaiting(
            gateway, nativeNote(gateway, 2).newBuilder().header("Expect", "100-continue").build());
    // A connection opened after the second began to wait, closed by the gateway for being idle:
    // the second has waited longer than the idle timeout.
    try (Socket idle = new Socket("127.0.0.1", gateway.app().port())) {
      idle.setSoTimeout(60_000);
      assertThat(idle.getInputStream().read()).as("closed by the gateway").isEqualTo(-1);
    }
    assertThat(second).as("still waiting its turn").isNotDone();

    fixture.provider().release();
    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    Gateway.Reply served = second.get(30, TimeUnit.SECONDS);
    assertThat(served.status()).as(served.body()).isEqualTo(200);
    assertThat(fixture.provider().calls()).isEqualTo(2);
  }

  @Test
  void anUploadThatWaitsTooLongIs503WithRetryAfterInItsEndpointsShapeAndNeverReachesTheProvider()
      throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_REQUEST_QUEUE_WAIT", "300ms"));
    CompletableFuture<Gateway.Reply> first = oneNoteHeldAtTheProvider(gateway);

    long started = System.nanoTime();
    Gateway.Reply openAi = gateway.send(openAi(gateway, 2));
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    // Turned away while the first still held the place: it did not wait for it.
    assertThat(first).isNotDone();
    assertThat(openAi.status()).as(openAi.body()).isEqualTo(503);
    assertThat(openAi.retryAfter()).isEqualTo("5");
    JsonNode error = JSON.readTree(openAi.body()).path("error");
    assertThat(error.path("code").asText()).as(openAi.body()).isEqualTo("server_unavailable");
    assertThat(error.path("message").asText()).isNotBlank();
    // It waited its queue wait first: a lower bound, which a busy machine only lengthens.
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(300));

    Gateway.Reply nativeReply = gateway.send(nativeNote(gateway, 3));
    assertThat(nativeReply.status()).as(nativeReply.body()).isEqualTo(503);
    JsonNode nativeError = JSON.readTree(nativeReply.body());
    assertThat(nativeError.path("code").asText()).isEqualTo("server_unavailable");
    assertThat(nativeError.path("error").isTextual()).as(nativeReply.body()).isTrue();
    assertThat(turnedAway(gateway)).isEqualTo(2);

    fixture.provider().release();
    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(fixture.provider().calls()).as("the turned-away notes never ran").isEqualTo(1);
    Gateway.Reply resent = gateway.send(nativeNote(gateway, 3));
    assertThat(resent.status()).as("a resend once there is room: " + resent.body()).isEqualTo(200);
  }

  @Test
  void withNoQueueWaitAnUploadOverTheLimitIsTurnedAwayAtOnce() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_REQUEST_QUEUE_WAIT", "0s"));
    CompletableFuture<Gateway.Reply> first = oneNoteHeldAtTheProvider(gateway);

    try (LogCapture logs = LogCapture.start()) {
      Gateway.Reply refused =
          gateway.send(
              nativeNote(gateway, 2).newBuilder().header("X-Bolo-Request-Id", "turned-1").build());
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.retryAfter()).isNotNull();
      assertThat(refused.requestId()).isEqualTo("turned-1");
      assertThat(first).as("turned away while the place was taken, not after").isNotDone();
      // Turned away before any route saw it, it still has its access line.
      assertThat(logs.text())
          .containsPattern(
              "INFO dev\\.bolo\\.server\\.http\\.RequestLog .*request_id=turned-1.* - POST"
                  + " /v1/transcriptions -> 503 in \\d+ ms");
    }

    fixture.provider().release();
    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  @Test
  void aDrainFinishesTheRunningUploadAndAnswersTheWaitingOne503() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_REQUEST_QUEUE_WAIT", "60s"));
    CompletableFuture<Gateway.Reply> first = oneNoteHeldAtTheProvider(gateway);
    CompletableFuture<Gateway.Reply> second = aSecondNoteWaiting(gateway);

    CompletableFuture<Boolean> drained;
    try (LogCapture logs = LogCapture.start()) {
      drained = onItsOwnThread(() -> gateway.app().drain(Duration.ofSeconds(30)));
      Await.until(() -> logs.text().contains("draining: "), () -> "the drain has not begun");
    }
    assertThat(drained).as("the drain waits for both").isNotDone();
    fixture.provider().release();

    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    Gateway.Reply turned = second.get(30, TimeUnit.SECONDS);
    assertThat(turned.status()).as(turned.body()).isEqualTo(503);
    assertThat(turned.retryAfter()).isNotNull();
    assertThat(drained.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  /** Takes the one place being served with a note the provider holds until released. */
  private CompletableFuture<Gateway.Reply> oneNoteHeldAtTheProvider(Gateway gateway)
      throws InterruptedException {
    fixture.provider().hold();
    CompletableFuture<Gateway.Reply> first = send(gateway, nativeNote(gateway, 1));
    Await.until(() -> fixture.provider().calls() == 1, () -> "the first note at the provider");
    return first;
  }

  /** Sends a second note and waits until it waits its turn. */
  private static CompletableFuture<Gateway.Reply> aSecondNoteWaiting(Gateway gateway)
      throws InterruptedException {
    return aSecondNoteWaiting(gateway, nativeNote(gateway, 2));
  }

  private static CompletableFuture<Gateway.Reply> aSecondNoteWaiting(
      Gateway gateway, Request request) throws InterruptedException {
    CompletableFuture<Gateway.Reply> second = send(gateway, request);
    Await.until(() -> waiting(gateway) == 1, () -> waiting(gateway) + " waiting, not 1");
    return second;
  }

  private static CompletableFuture<Gateway.Reply> send(Gateway gateway, Request request) {
    return onItsOwnThread(() -> gateway.send(request));
  }

  /** Runs on a thread of its own: the common pool may have a single thread on a small machine. */
  private static <T> CompletableFuture<T> onItsOwnThread(Callable<T> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                result.complete(task.call());
              } catch (Exception e) {
                result.completeExceptionally(e);
              }
            });
    return result;
  }

  private static Request nativeNote(Gateway gateway, long seed) {
    return gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(500, seed));
  }

  private static Request openAi(Gateway gateway, long seed) {
    RequestBody body =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart("model", "whisper-1")
            .addFormDataPart(
                "file",
                "note.wav",
                RequestBody.create(TestAudio.wav(500, seed), MediaType.get("audio/wav")))
            .build();
    return new Request.Builder()
        .url(gateway.url("/v1/audio/transcriptions"))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .post(body)
        .build();
  }

  private static Gateway.Reply get(Gateway gateway, String path) throws IOException {
    return gateway.send(new Request.Builder().url(gateway.url(path)).build());
  }

  private static long waiting(Gateway gateway) {
    return (long) gateway.app().metrics().get("bolo_requests_waiting").gauge().value();
  }

  private static long turnedAway(Gateway gateway) {
    return (long)
        gateway.app().metrics().get("bolo_requests_turned_away").functionCounter().count();
  }
}
