package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import okio.Buffer;
import okio.BufferedSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A provider's answer is read up to {@code BOLO_MAX_TRANSCRIPT_BYTES}, and its error bodies reach
 * phones only as a short, sanitised message.
 */
class ProviderAnswerBoundsTest {

  private static final ObjectMapper JSON =
      new ObjectMapper(
          com.fasterxml.jackson.core.JsonFactory.builder()
              .streamReadConstraints(
                  com.fasterxml.jackson.core.StreamReadConstraints.builder()
                      .maxStringLength(Integer.MAX_VALUE)
                      .build())
              .build());

  /** 21 MB: past Jackson's default 20-million-character string cap, under the 32 MiB default. */
  private static final int TRANSCRIPT_CHARS = 21_000_000;

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(Map.of("BOLO_DEDUP_MAX_BYTES", Long.toString(256L * 1024 * 1024)));

  private Gateway start(Map<String, String> extra) {
    return fixture.start(extra);
  }

  private static MockResponse transcriptOf(int chars, boolean chunked) {
    Buffer body = new Buffer().writeUtf8("{\"text\":\"");
    byte[] block = "a".repeat(64 * 1024).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    for (int written = 0; written < chars; written += block.length) {
      body.write(block, 0, Math.min(block.length, chars - written));
    }
    body.writeUtf8("\"}");
    MockResponse.Builder answer =
        new MockResponse.Builder().code(200).setHeader("Content-Type", "application/json");
    return (chunked ? answer.chunkedBody(body, 1024 * 1024) : answer.body(body)).build();
  }

  private Gateway.Reply upload(int seed) throws Exception {
    Gateway gateway = fixture.gateway();
    return gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(500, seed)));
  }

  @Test
  void aTwentyOneMegabyteTranscriptIsRelayedWholeUnderTheDefaultLimit() throws Exception {
    start(Map.of());
    fixture.provider().enqueue(transcriptOf(TRANSCRIPT_CHARS, false));

    Gateway.Reply reply = upload(1);

    assertThat(reply.status()).as(reply.body().substring(0, 200)).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).get("text").asText()).hasSize(TRANSCRIPT_CHARS);
  }

  /**
   * Two answers that together pass {@code BOLO_ANSWER_BUDGET_BYTES} are not held at once: the
   * second, which arrives whole at once, waits for room while the first, half sent, holds its
   * bytes; once the rest of the first has been read and parsed, both are answered in full.
   */
  @Test
  void anAnswerThatDoesNotFitTheAnswerBudgetWaitsForTheOneBeforeIt() throws Exception {
    Gateway gateway = start(Map.of("BOLO_ANSWER_BUDGET_BYTES", "1048576"));
    int chars = 700_000;
    CountDownLatch rest = new CountDownLatch(1);
    fixture.provider().enqueue(halfNowHalfAfter(transcriptOf(chars, false), rest));
    fixture.provider().enqueue(transcriptOf(chars, false));
    try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Gateway.Reply> first = phones.submit(() -> upload(7));
      Await.until(
          () -> gauge(gateway, "bolo_answer_bytes") > chars,
          () -> "the first answer holds no bytes");
      Future<Gateway.Reply> second = phones.submit(() -> upload(8));
      Await.until(
          () -> gauge(gateway, "bolo_answers_waiting") == 1,
          () -> "no answer waits for room: " + gauge(gateway, "bolo_answer_bytes") + " bytes held");
      assertThat(second).as("waiting while the first holds its bytes").isNotDone();

      rest.countDown();
      Gateway.Reply secondReply = second.get(60, TimeUnit.SECONDS);
      Gateway.Reply firstReply = first.get(60, TimeUnit.SECONDS);

      for (Gateway.Reply reply : List.of(firstReply, secondReply)) {
        assertThat(reply.status()).isEqualTo(200);
        assertThat(JSON.readTree(reply.body()).get("text").asText()).hasSize(chars);
      }
    }
    // Every byte charged was given back.
    String metrics = gateway.app().metrics().scrape();
    assertThat(metrics)
        .contains("\nbolo_answer_bytes 0.0\n")
        .contains("\nbolo_answers_waiting 0.0\n")
        .contains("\nbolo_answer_budget_bytes 1048576.0\n");
  }

  /**
   * {@code answer} with its length declared, its first half sent at once, the rest once {@code
   * rest} opens.
   */
  private static MockResponse halfNowHalfAfter(MockResponse answer, CountDownLatch rest) {
    Buffer whole = new Buffer();
    try {
      java.util.Objects.requireNonNull(answer.getBody()).writeTo(whole);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    byte[] bytes = whole.readByteArray();
    MockResponseBody body =
        new MockResponseBody() {
          @Override
          public long getContentLength() {
            return bytes.length;
          }

          @Override
          public void writeTo(BufferedSink sink) throws java.io.IOException {
            sink.write(bytes, 0, bytes.length / 2).flush();
            try {
              if (!rest.await(60, TimeUnit.SECONDS)) {
                throw new java.io.IOException("the test never let the rest go");
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.IOException(e);
            }
            sink.write(bytes, bytes.length / 2, bytes.length - bytes.length / 2).flush();
          }
        };
    return answer.newBuilder().body(body).build();
  }

  private static double gauge(Gateway gateway, String name) {
    return gateway.app().metrics().get(name).gauge().value();
  }

  @Test
  void anAnswerDeclaredLargerThanTheConfiguredLimitIsAnUpstreamErrorNamingTheLimit()
      throws Exception {
    start(Map.of("BOLO_MAX_TRANSCRIPT_BYTES", "20000000"));
    fixture.provider().enqueue(transcriptOf(TRANSCRIPT_CHARS, false));

    JsonNode error = assertError(upload(2), 502, "upstream_error");

    assertThat(error.get("error").asText()).isEqualTo("provider answer larger than 20000000 bytes");
  }

  @Test
  void aChunkedAnswerIsCutOffOnceItPassesTheLimit() throws Exception {
    start(Map.of("BOLO_MAX_TRANSCRIPT_BYTES", "20000000"));
    fixture.provider().enqueue(transcriptOf(TRANSCRIPT_CHARS, true));

    JsonNode error = assertError(upload(3), 502, "upstream_error");

    assertThat(error.get("error").asText()).isEqualTo("provider answer larger than 20000000 bytes");
  }

  @Test
  void aProxysHtmlErrorPageReachesThePhoneAsItsStatusOnly() throws Exception {
    start(Map.of());
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(500)
                .setHeader("Content-Type", "text/html")
                .body(
                    "<html><body><h1>502 Bad Gateway</h1>upstream 10.0.3.7:8443"
                        + " (whisper-7.internal.example.net) refused</body></html>")
                .build());

    JsonNode error = assertError(upload(4), 502, "upstream_error");

    assertThat(error.get("error").asText()).isEqualTo("the provider failed with 500: HTTP 500");
  }

  @Test
  void aProviderMessageLosesKeysHostsAddressesAndLength() throws Exception {
    start(Map.of());
    String key = "sk-proj-" + "A1b2C3d4E5".repeat(4);
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(400)
                .setHeader("Content-Type", "application/json")
                .body(
                    ("{\"error\":{\"message\":\"Invalid file format for key %s at"
                            + " https://api.example.com/v1/audio via 192.168.4.20:443 and"
                            + " gw.internal.example.net; %s\"}}")
                        .formatted(key, "x".repeat(1000)))
                .build());

    JsonNode error = assertError(upload(5), 422, "upstream_rejected");

    String message = error.get("error").asText();
    assertThat(message)
        .startsWith("Invalid file format for key [redacted] at [url] via [address] and [host];")
        .doesNotContain(key)
        .doesNotContain("example")
        .doesNotContain("192.168");
    assertThat(message.length()).isLessThanOrEqualTo(201);
  }

  private static JsonNode assertError(Gateway.Reply reply, int status, String code)
      throws Exception {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(reply.body());
    assertThat(body.get("code").asText()).isEqualTo(code);
    return body;
  }
}
