package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Admission control on a real gateway: a body being read holds its declared length of the byte
 * budget ({@code BOLO_UPLOAD_BUDGET_BYTES}); a large upload that does not fit waits its turn or
 * gets 503 {@code server_unavailable} with {@code Retry-After} before its body is read, small notes
 * pass meanwhile, and the budget comes back on every path.
 */
class UploadAdmissionTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BOUNDARY = "admissionboundary";

  /** Room for the body held open below (about 192 KB) but not for a second large note. */
  private static final int BUDGET_BYTES = 250_000;

  /** Notes up to this size stay in memory and are admitted at once. */
  private static final int SMALL_BYTES = 65_536;

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(
          Map.of(
              "BOLO_UPLOAD_BUDGET_BYTES",
              Integer.toString(BUDGET_BYTES),
              "BOLO_UPLOAD_MEMORY_BYTES",
              Integer.toString(SMALL_BYTES),
              // The body held open below trickles; it must not be cut off for that.
              "BOLO_MIN_BODY_RATE",
              "1",
              "BOLO_BODY_RATE_WINDOW",
              "60s"));

  private Gateway start(Duration queueWait) {
    return fixture.start(Map.of("BOLO_UPLOAD_QUEUE_WAIT", queueWait.toMillis() + "ms"));
  }

  @Test
  void aLargeUploadBeyondTheBudgetGets503WithRetryAfterAtOnceWhileSmallNotesStillPass()
      throws Exception {
    Gateway gateway = start(Duration.ZERO);
    byte[] held = rawUpload(TestAudio.wav(6000, 1));
    try (Socket holder = connect(gateway)) {
      sendPart(holder, held, held.length / 2);
      awaitAdmitted(gateway, held.length - requestHeadLength(held));

      Gateway.Reply refused = gateway.send(gateway.nativeUpload(Gateway.TOKEN_B, large(2)));
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertNativeError(refused.body(), "server_unavailable");
      assertThat(refused.retryAfter()).isEqualTo("1");
      // Refused while the held body still had its share: it did not wait for room.
      assertThat(gauge(gateway, "bolo_upload_admitted_bytes"))
          .isEqualTo((double) (held.length - requestHeadLength(held)));

      Gateway.Reply small = gateway.send(gateway.nativeUpload(Gateway.TOKEN_B, small(3)));
      assertThat(small.status())
          .as("a small note is admitted at once: " + small.body())
          .isEqualTo(200);
    }
    // The holder hung up mid-body: its share comes back.
    awaitAdmitted(gateway, 0);
    Gateway.Reply later = gateway.send(gateway.nativeUpload(Gateway.TOKEN_B, large(2)));
    assertThat(later.status()).as("room again: " + later.body()).isEqualTo(200);
    assertThat(fixture.provider().calls())
        .as("the refused upload never reached the provider")
        .isEqualTo(2);
    awaitAdmitted(gateway, 0);
  }

  @Test
  void aLargeUploadWaitsForRoomAndIsServedOnceTheBodyAheadOfItHasArrived() throws Exception {
    Gateway gateway = start(Duration.ofSeconds(60));
    byte[] held = rawUpload(TestAudio.wav(6000, 4));
    try (Socket holder = connect(gateway)) {
      sendPart(holder, held, held.length / 2);
      awaitAdmitted(gateway, held.length - requestHeadLength(held));
      CompletableFuture<Gateway.Reply> waiting =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return gateway.send(gateway.nativeUpload(Gateway.TOKEN_B, large(5)));
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      Await.until(() -> waitingUploads(gateway) == 1, () -> waitingUploads(gateway) + " waiting");
      assertThat(waiting).as("no room while the first body is read").isNotDone();

      OutputStream out = holder.getOutputStream();
      out.write(held, held.length / 2, held.length - held.length / 2);
      out.flush();

      assertThat(readReply(holder).status()).isEqualTo(200);
      Gateway.Reply reply = waiting.get(30, TimeUnit.SECONDS);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    }
    awaitAdmitted(gateway, 0);
    assertThat(waitingUploads(gateway)).isZero();
  }

  @Test
  void theBudgetComesBackAfterMalformedOversizedAndUnsupportedBodies() throws Exception {
    Gateway gateway = start(Duration.ZERO);
    Request malformed =
        new Request.Builder()
            .url(gateway.url("/v1/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(
                RequestBody.create(
                    new byte[100_000], MediaType.get("multipart/form-data; boundary=" + BOUNDARY)))
            .build();
    assertThat(gateway.send(malformed).status()).isEqualTo(400);
    awaitAdmitted(gateway, 0);

    byte[] notAudio = new byte[100_000];
    java.util.Arrays.fill(notAudio, (byte) 'x');
    assertThat(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, notAudio)).status())
        .isEqualTo(415);
    awaitAdmitted(gateway, 0);

    Gateway.Reply ok = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, large(6)));
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
    awaitAdmitted(gateway, 0);
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void aChunkedUploadIsChargedAsTheLargestNoteItMayBe() throws Exception {
    Gateway gateway = start(Duration.ZERO);
    byte[] held = rawUpload(TestAudio.wav(3000, 7));
    try (Socket holder = connect(gateway)) {
      sendPart(holder, held, held.length / 2);
      awaitAdmitted(gateway, held.length - requestHeadLength(held));

      Gateway.Reply refused = gateway.send(chunkedUpload(gateway, small(8)));
      assertThat(refused.status())
          .as("a body of unknown length may be as large as the whole budget: " + refused.body())
          .isEqualTo(503);
      assertThat(refused.retryAfter()).isNotNull();
    }
    awaitAdmitted(gateway, 0);
    Gateway.Reply alone = gateway.send(chunkedUpload(gateway, small(8)));
    assertThat(alone.status()).as("alone it runs: " + alone.body()).isEqualTo(200);
    awaitAdmitted(gateway, 0);
  }

  /** 128 KB of audio: over the in-memory threshold, so it needs room in the budget. */
  private static byte[] large(long seed) {
    return TestAudio.wav(4000, seed);
  }

  /** 16 KB of audio: stays in memory. */
  private static byte[] small(long seed) {
    return TestAudio.wav(500, seed);
  }

  private static Request chunkedUpload(Gateway gateway, byte[] audio) {
    MultipartBody form =
        new MultipartBody.Builder(BOUNDARY)
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                "audio", "note.wav", RequestBody.create(audio, MediaType.get("audio/wav")))
            .build();
    RequestBody unknownLength =
        new RequestBody() {
          @Override
          public MediaType contentType() {
            return form.contentType();
          }

          @Override
          public long contentLength() {
            return -1;
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            form.writeTo(sink);
          }
        };
    return new Request.Builder()
        .url(gateway.url("/v1/transcriptions"))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .post(unknownLength)
        .build();
  }

  private static double gauge(Gateway gateway, String name) {
    return gateway.app().metrics().get(name).gauge().value();
  }

  private static long waitingUploads(Gateway gateway) {
    return (long) gauge(gateway, "bolo_upload_waiting");
  }

  private static void awaitAdmitted(Gateway gateway, long bytes) throws InterruptedException {
    Await.until(
        () -> gauge(gateway, "bolo_upload_admitted_bytes") == bytes,
        () -> gauge(gateway, "bolo_upload_admitted_bytes") + " bytes admitted, not " + bytes);
  }

  private static Socket connect(Gateway gateway) throws IOException {
    Socket socket = new Socket("127.0.0.1", gateway.app().port());
    socket.setSoTimeout(30_000);
    return socket;
  }

  /** A whole native upload of {@code audio} by device alpha, as the bytes on the wire. */
  private static byte[] rawUpload(byte[] audio) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(
        ascii(
            "--"
                + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\"audio\"; filename=\"n.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n"));
    body.writeBytes(audio);
    body.writeBytes(ascii("\r\n--" + BOUNDARY + "--\r\n"));
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(
        ascii(
            "POST /v1/transcriptions HTTP/1.1\r\nHost: bolo\r\nAuthorization: Bearer "
                + Gateway.TOKEN_A
                + "\r\nContent-Type: multipart/form-data; boundary="
                + BOUNDARY
                + "\r\nContent-Length: "
                + body.size()
                + "\r\n\r\n"));
    request.writeBytes(body.toByteArray());
    return request.toByteArray();
  }

  private static int requestHeadLength(byte[] request) {
    String text = new String(request, 0, 1024, StandardCharsets.ISO_8859_1);
    return text.indexOf("\r\n\r\n") + 4;
  }

  private static void sendPart(Socket socket, byte[] request, int length) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(request, 0, length);
    out.flush();
  }

  private record RawReply(int status, String body) {}

  /** Reads one HTTP/1.1 answer with a Content-Length. */
  private static RawReply readReply(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new AssertionError("connection closed without an answer: " + head);
      }
      head.write(b);
    }
    String headers = head.toString(StandardCharsets.ISO_8859_1);
    int length = 0;
    for (String line : headers.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return new RawReply(
        Integer.parseInt(headers.substring(9, 12)),
        new String(in.readNBytes(length), StandardCharsets.UTF_8));
  }

  private static void assertNativeError(String body, String code) throws IOException {
    JsonNode json = JSON.readTree(body);
    assertThat(json.path("code").asText()).as(body).isEqualTo(code);
    assertThat(json.path("error").isTextual()).as(body).isTrue();
  }

  private static byte[] ascii(String text) {
    return Objects.requireNonNull(text).getBytes(StandardCharsets.US_ASCII);
  }
}
