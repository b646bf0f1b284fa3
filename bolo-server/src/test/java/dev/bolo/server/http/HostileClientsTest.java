package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.RawAnswer;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real gateway on loopback against clients that send slowly, fall silent, hold connections or
 * send oversized headers, with short timeouts so each case answers in about a second: each gets its
 * JSON error, naming the limit it broke, leaves no spool file, and a normal upload sent meanwhile
 * succeeds.
 */
class HostileClientsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BOUNDARY = "hostileboundary";

  /**
   * How long a socket waits for the gateway's answer: a bound on a hang, not on speed, far above
   * the one-second timers set here and half the 30 s default idle timeout, which a busy machine
   * delays by no more than its scheduling.
   */
  private static final Duration HANG = Duration.ofSeconds(15);

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(
          Map.of(
              "BOLO_HEADER_TIMEOUT", "1s",
              "BOLO_IDLE_TIMEOUT", "1s",
              "BOLO_MIN_BODY_RATE", "65536",
              "BOLO_BODY_RATE_WINDOW", "1s",
              // Every audio byte goes through the spool, so a leftover file would show.
              "BOLO_UPLOAD_MEMORY_BYTES", "0"));

  private Gateway gateway() {
    return fixture.gateway();
  }

  private void start(Map<String, String> extra) {
    fixture.start(extra);
  }

  @Test
  void headersSentByteByByteAreCutOffWith408InJson() throws Exception {
    start(Map.of());
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      out.write(ascii("POST /v1/transcriptions HTTP/1.1\r\nHost: bolo\r\n"));
      out.flush();
      AtomicBoolean trickling = new AtomicBoolean(true);
      Thread trickle =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      while (trickling.get()) {
                        out.write('x');
                        out.flush();
                        // The client's slowness is the behaviour under test.
                        Thread.sleep(100);
                      }
                    } catch (IOException | InterruptedException e) {
                      // Closed by the gateway, which is the point.
                    }
                  });
      // Cut while the client still sent a byte every 100 ms, which keeps Jetty's idle timeout away.
      RawReply reply = readReply(socket);
      trickling.set(false);
      trickle.join();
      assertThat(reply.status()).isEqualTo(408);
      assertNativeError(reply.body(), "request_timeout");
      assertThat(reply.body()).contains("did not arrive within 1000 ms");
    }
  }

  @Test
  void aConnectionSendingRequestAfterRequestInGoodTimeIsNeverCutByTheHeaderDeadline()
      throws Exception {
    start(Map.of());
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      // Thirty requests on one connection, each one's headers in two halves 100 ms apart: for at
      // least 3 s, three times the header timeout, the sweeps find it reading headers nearly
      // every time, but each request's own headers take a tenth of the timeout.
      for (int i = 0; i < 30; i++) {
        out.write(ascii("GET /assets/missing-" + i + ".js HTTP/1.1\r\nHost: bolo\r\n"));
        out.flush();
        // The client's pace is the behaviour under test.
        Thread.sleep(100);
        out.write(ascii("X-Part: " + i + "\r\n\r\n"));
        out.flush();
        assertThat(RawAnswer.read(in).status()).as("request %d", i).isEqualTo(404);
      }
    }
  }

  @Test
  void aBodyTricklingBelowTheMinimumRateGets408AndANormalUploadMeanwhileSucceeds()
      throws Exception {
    start(Map.of());
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      sendUploadHead(out, 200_000);
      AtomicBoolean trickling = new AtomicBoolean(true);
      Thread trickle =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      while (trickling.get()) {
                        out.write(new byte[100]);
                        out.flush();
                        // The client's slowness is the behaviour under test.
                        Thread.sleep(50);
                      }
                    } catch (IOException | InterruptedException e) {
                      // Closed by the gateway.
                    }
                  });
      Gateway.Reply normal = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, wav()));
      assertThat(normal.status()).as(normal.body()).isEqualTo(200);
      RawReply reply = readReply(socket);
      trickling.set(false);
      trickle.join();
      assertThat(reply.status()).as(reply.body()).isEqualTo(408);
      assertNativeError(reply.body(), "request_timeout");
      assertThat(reply.body()).contains("slower than 65536 bytes per second over 1000 ms");
    }
    awaitNoSpoolFile();
  }

  @Test
  void aBodyThatFallsSilentGets408WithoutJettyInternals() throws Exception {
    start(Map.of());
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      sendUploadHead(out, 200_000);
      out.write(new byte[20_000]);
      out.flush();
      Gateway.Reply normal = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, wav()));
      assertThat(normal.status()).as(normal.body()).isEqualTo(200);
      RawReply reply = readReply(socket);
      assertThat(reply.status()).as(reply.body()).isEqualTo(408);
      assertNativeError(reply.body(), "request_timeout");
      assertThat(reply.body()).doesNotContain("Exception", "Idle timeout", "java.");
      assertThat(reply.body()).contains("over 1000 ms, or stopped");
    }
    awaitNoSpoolFile();
  }

  @Test
  void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
    start(Map.of());
    try (Socket socket = connect()) {
      long started = System.nanoTime();
      // Closed before the socket gives up (HANG, half the 30 s default): the second configured.
      assertThat(socket.getInputStream().read()).as("closed by the gateway").isEqualTo(-1);
      // Not before the timeout: a lower bound, which a busy machine only lengthens.
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }
  }

  @Test
  void aPhoneWaitingForItsTranscriptLongerThanTheIdleTimeoutIsNotCutOff() throws Exception {
    start(Map.of());
    fixture.provider().hold();
    CompletableFuture<Gateway.Reply> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, wav()));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    Await.until(() -> fixture.provider().calls() == 1, () -> "the note never reached the provider");
    // A connection opened after the phone began to wait, closed by the gateway for being idle:
    // the phone's wait has outlasted the idle timeout.
    try (Socket idle = connect()) {
      assertThat(idle.getInputStream().read()).as("closed by the gateway").isEqualTo(-1);
    }
    assertThat(waiting).as("still waiting for its transcript").isNotDone();
    fixture.provider().release();
    Gateway.Reply reply = waiting.get(60, TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
  }

  @Test
  void uploadsBeyondTheConcurrencyLimitGet503WithRetryAfter() throws Exception {
    start(
        Map.of(
            "BOLO_MAX_CONCURRENT_UPLOADS", "1",
            "BOLO_MIN_BODY_RATE", "1",
            "BOLO_BODY_RATE_WINDOW", "20s"));
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      sendUploadHead(out, 200_000);
      out.write(new byte[1000]);
      out.flush();
      Await.until(() -> spoolFiles() == 1, () -> spoolFiles() + " spool files");
      Gateway.Reply refused = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, wav()));
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertNativeError(refused.body(), "server_unavailable");
      assertThat(refused.retryAfter()).isNotNull();
    }
    awaitNoSpoolFile();
    Gateway.Reply later = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, wav()));
    assertThat(later.status()).as("the slot is free again: " + later.body()).isEqualTo(200);
  }

  @Test
  void anUploadTheFullSpoolCannotHoldGets503AndGivesItsBytesBack() throws Exception {
    start(Map.of("BOLO_SPOOL_MAX_BYTES", "100000"));
    // Unfinished resumable uploads hold their whole length from creation, a device a quarter.
    String heldByA = createResumable(Gateway.TOKEN_A, 25_000);
    createResumable(Gateway.TOKEN_B, 25_000);
    assertThat(gateway().app().metrics().get("bolo_spool_bytes").gauge().value()).isEqualTo(50_000);

    // 51 KB: within the largest note (the whole spool), but not within what is left of it.
    byte[] note = TestAudio.wav(1600, 7);
    Gateway.Reply refused = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(refused.status()).as(refused.body()).isEqualTo(503);
    assertNativeError(refused.body(), "server_unavailable");
    assertThat(refused.retryAfter()).isNotNull();
    assertThat(gateway().app().metrics().get("bolo_spool_bytes").gauge().value()).isEqualTo(50_000);

    Request delete =
        new Request.Builder()
            .url(gateway().url(heldByA))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .header("Tus-Resumable", "1.0.0")
            .delete()
            .build();
    try (Response deleted = gateway().client().newCall(delete).execute()) {
      assertThat(deleted.code()).isEqualTo(204);
    }
    Gateway.Reply taken = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(taken.status()).as(taken.body()).isEqualTo(200);
  }

  @Test
  void aNoteLargerThanTheWholeSpoolIs413NamingTheLimitNot503() throws Exception {
    start(Map.of("BOLO_SPOOL_MAX_BYTES", "50000"));
    Gateway.Reply refused =
        gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(4000, 7)));
    assertThat(refused.status()).as("no resend could succeed: " + refused.body()).isEqualTo(413);
    assertNativeError(refused.body(), "audio_too_large");
    assertThat(JSON.readTree(refused.body()).get("error").asText())
        .isEqualTo("the note is larger than 50000 bytes, the most this gateway takes");
    assertThat(gateway().app().metrics().get("bolo_spool_bytes").gauge().value()).isZero();
    Await.until(() -> spoolFiles() == 0, () -> "spool files left: " + spoolFiles());
  }

  /** Creates a tus upload of {@code length} bytes without sending any; its path. */
  private String createResumable(String token, long length) throws IOException {
    Request create =
        new Request.Builder()
            .url(gateway().url("/v1/uploads"))
            .header("Authorization", "Bearer " + token)
            .header("Tus-Resumable", "1.0.0")
            .header("Upload-Length", Long.toString(length))
            .post(RequestBody.create(new byte[0]))
            .build();
    try (Response created = gateway().client().newCall(create).execute()) {
      assertThat(created.code()).isEqualTo(201);
      return Objects.requireNonNull(created.header("Location"));
    }
  }

  @Test
  void aFileInPlaceOfTheSpoolIs503NamingNoPathAndReadinessReportsTheSpoolDown() throws Exception {
    start(Map.of());
    Path spool = spoolDir();
    try (Stream<Path> files = Files.list(spool)) {
      assertThat(files).isEmpty();
    }
    Files.delete(spool);
    Files.writeString(spool, "not a folder");
    for (String path : new String[] {"/v1/transcriptions", "/v1/audio/transcriptions"}) {
      Gateway.Reply reply =
          gateway().send(Gateway.nativeUploadRequest(gateway().url(path), Gateway.TOKEN_A, wav()));
      assertThat(reply.status()).as(reply.body()).isEqualTo(503);
      assertThat(reply.retryAfter()).isNotNull();
      assertThat(reply.body())
          .contains("server_unavailable")
          .doesNotContain(fixture.dataDir().toString(), "/tmp", "Exception", "java.", "upload-");
    }
    assertThat(fixture.provider().calls()).isZero();
    Await.until(() -> readyz().status() == 503, () -> readyz().body());
    assertThat(readyz().body()).contains("\"spool\":\"down\"");
    Files.delete(spool);
    Await.until(() -> readyz().status() == 200, () -> readyz().body());
  }

  @Test
  void anOversizedIdempotencyKeyGets431InEachEndpointsJsonShape() throws Exception {
    start(Map.of());
    String key = "k".repeat(10_000);
    Gateway.Reply nativeReply =
        gateway()
            .send(
                gateway()
                    .nativeUpload(Gateway.TOKEN_A, wav())
                    .newBuilder()
                    .header("Idempotency-Key", key)
                    .build());
    assertThat(nativeReply.status()).isEqualTo(431);
    assertNativeError(nativeReply.body(), "invalid_parameter");
    Gateway.Reply openAiReply =
        gateway()
            .send(
                Gateway.nativeUploadRequest(
                        gateway().url("/v1/audio/transcriptions"), Gateway.TOKEN_A, wav())
                    .newBuilder()
                    .header("Idempotency-Key", key)
                    .build());
    assertThat(openAiReply.status()).isEqualTo(431);
    JsonNode error = JSON.readTree(openAiReply.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("invalid_parameter");
    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("message").asText()).contains("headers are too large");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void malformedRequestsAndOverlongUrisGetJettysStatusInTheNativeJsonShape() throws Exception {
    start(Map.of());
    Map<String, Integer> requests =
        Map.of(
            "NOT A REQUEST\r\n\r\n",
            505,
            "GET /v1/transcriptions?q=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: b\r\n\r\n",
            414,
            "POST /v1/transcriptions HTTP/1.1\r\nHost: b\r\nContent-Length: x\r\n\r\n",
            400);
    for (Map.Entry<String, Integer> request : requests.entrySet()) {
      try (Socket socket = connect()) {
        socket.getOutputStream().write(ascii(request.getKey()));
        socket.getOutputStream().flush();
        RawReply reply = readReply(socket);
        assertThat(reply.status()).as(reply.body()).isEqualTo(request.getValue());
        assertThat(reply.body()).doesNotContain("<html", "Exception", "java.");
        assertThat(JSON.readTree(reply.body()).path("code").asText())
            .as(reply.body())
            .isEqualTo("invalid_parameter");
      }
    }
  }

  private Gateway.Reply readyz() {
    try {
      return gateway().send(new Request.Builder().url(gateway().url("/readyz")).build());
    } catch (IOException e) {
      throw new AssertionError("readiness not served", e);
    }
  }

  private static byte[] wav() {
    return TestAudio.wav(500, 1);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", gateway().app().port());
    socket.setSoTimeout((int) HANG.toMillis());
    return socket;
  }

  /** Headers of a valid upload and the start of its audio part; the rest is the test's to send. */
  private static void sendUploadHead(OutputStream out, int contentLength) throws IOException {
    out.write(
        ascii(
            "POST /v1/transcriptions HTTP/1.1\r\nHost: bolo\r\nAuthorization: Bearer "
                + Gateway.TOKEN_A
                + "\r\nContent-Type: multipart/form-data; boundary="
                + BOUNDARY
                + "\r\nContent-Length: "
                + contentLength
                + "\r\n\r\n--"
                + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\"audio\"; filename=\"n.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n"));
    byte[] wav = TestAudio.wav(60_000, 3);
    out.write(wav, 0, 44);
    out.flush();
  }

  private record RawReply(int status, String body) {}

  /** Reads one HTTP/1.1 answer with a Content-Length, as the gateway's errors carry. */
  private static RawReply readReply(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    try {
      while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new AssertionError("connection closed without an answer: " + head);
        }
        head.write(b);
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no answer in time", e);
    }
    String headers = head.toString(StandardCharsets.ISO_8859_1);
    int status = Integer.parseInt(headers.substring(9, 12));
    int length = 0;
    for (String line : headers.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return new RawReply(status, new String(in.readNBytes(length), StandardCharsets.UTF_8));
  }

  private static void assertNativeError(String body, String code) throws IOException {
    JsonNode json = JSON.readTree(body);
    assertThat(json.path("code").asText()).as(body).isEqualTo(code);
    assertThat(json.path("error").isTextual()).as(body).isTrue();
    assertThat(json.path("request_id").asText()).as(body).isNotBlank();
  }

  private Path spoolDir() {
    return fixture.dataDir().resolve("spool").resolve("slot-0");
  }

  private long spoolFiles() {
    try (Stream<Path> files = Files.list(spoolDir())) {
      return files.count();
    } catch (IOException e) {
      return -1;
    }
  }

  private void awaitNoSpoolFile() throws InterruptedException {
    Await.until(() -> spoolFiles() == 0, () -> spoolFiles() + " spool files left");
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
