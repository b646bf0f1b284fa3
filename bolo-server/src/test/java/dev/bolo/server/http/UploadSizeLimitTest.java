package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The size limits of a note: one POST takes up to {@code BOLO_MAX_UPLOAD_BYTES}, a resumable upload
 * up to a quarter of the spool budget; a note over either is refused with 413 before its body is
 * read, in a message that names the limit and, for a POST, the resumable upload.
 */
class UploadSizeLimitTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A 31.25 s WAV at 16 kHz, 16 bits, mono: 44 bytes of header and 32 bytes per millisecond. */
  private static final int POST_LIMIT = 44 + 32 * 31_250;

  /** A quarter of it, 4 MB, is the largest resumable upload. */
  private static final int SPOOL_BYTES = 16_000_000;

  private static final int RESUMABLE_LIMIT = SPOOL_BYTES / 4;

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(
          Map.of(
              "BOLO_MAX_UPLOAD_BYTES",
              Integer.toString(POST_LIMIT),
              "BOLO_SPOOL_MAX_BYTES",
              Integer.toString(SPOOL_BYTES),
              "BOLO_UPLOAD_MEMORY_BYTES",
              "65536"));

  @Test
  void aDeclaredLengthOverTheLimitIsAnswered413BeforeTheBodyIsSent() throws Exception {
    for (String path : new String[] {"/v1/transcriptions", "/v1/audio/transcriptions"}) {
      // Answered with 600 MB of the body never sent: the gateway did not wait for it.
      RawReply reply = headersOnly(path, 600_000_000L);

      assertThat(reply.status()).as(path + ": " + reply.body()).isEqualTo(413);
      JsonNode body = JSON.readTree(reply.body());
      String message =
          path.equals("/v1/transcriptions")
              ? body.get("error").asText()
              : body.get("error").get("message").asText();
      String code =
          path.equals("/v1/transcriptions")
              ? body.get("code").asText()
              : body.get("error").get("code").asText();
      assertThat(code).isEqualTo("audio_too_large");
      assertThat(message)
          .contains("larger than 1.0 MB (" + POST_LIMIT + " bytes)")
          .contains("resumable upload (tus 1.0.0 at /v1/uploads)")
          .contains("up to 4.0 MB (4000000 bytes)");
    }
  }

  @Test
  void aNoteAtTheLimitIsTakenAndOneJustOverItIsRefused() throws Exception {
    byte[] atTheLimit = TestAudio.wav(31_250, 1);
    assertThat(atTheLimit).hasSize(POST_LIMIT);
    Gateway.Reply taken =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, atTheLimit));
    assertThat(taken.status()).as(taken.body()).isEqualTo(200);

    // 32 bytes over: its body still fits the form's allowance, so it is cut while read.
    byte[] over = TestAudio.wav(31_251, 2);
    Gateway.Reply refused =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, over));
    assertThat(refused.status()).as(refused.body()).isEqualTo(413);
    assertThat(JSON.readTree(refused.body()).get("error").asText())
        .contains("larger than 1.0 MB (" + POST_LIMIT + " bytes)")
        .contains("/v1/uploads");
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void aChunkedBodyWithoutALengthIsCutAtTheLimit() throws Exception {
    long size = 3L * POST_LIMIT;
    RequestBody endless =
        new RequestBody() {
          @Override
          public MediaType contentType() {
            return MediaType.get("audio/wav");
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            byte[] head = TestAudio.wav(10, 3);
            sink.write(head);
            byte[] chunk = new byte[8192];
            for (long written = head.length; written < size; written += chunk.length) {
              sink.write(chunk);
            }
          }
        };
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(
                new MultipartBody.Builder()
                    .setType(MultipartBody.FORM)
                    .addFormDataPart("audio", "long.wav", endless)
                    .build())
            .build();

    Gateway.Reply reply = fixture.gateway().send(request);

    assertThat(reply.status()).as(reply.body()).isEqualTo(413);
    assertThat(JSON.readTree(reply.body()).get("code").asText()).isEqualTo("audio_too_large");
    assertThat(JSON.readTree(reply.body()).get("error").asText())
        .contains("larger than 1.0 MB (" + POST_LIMIT + " bytes)");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void aResumableUploadTakesANoteLargerThanOnePostUpToAQuarterOfTheSpoolAndAdvertisesIt()
      throws Exception {
    Request options =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/uploads"))
            .method("OPTIONS", null)
            .build();
    try (Response response = fixture.gateway().client().newCall(options).execute()) {
      assertThat(response.header("Tus-Max-Size")).isEqualTo(Integer.toString(RESUMABLE_LIMIT));
    }

    try (Response created = tusCreate(2L * POST_LIMIT)) {
      assertThat(created.code()).as("twice what one POST takes").isEqualTo(201);
    }
    try (Response refused = tusCreate(RESUMABLE_LIMIT + 1L)) {
      assertThat(refused.code()).isEqualTo(413);
      JsonNode body = JSON.readTree(refused.body().string());
      assertThat(body.get("code").asText()).isEqualTo("audio_too_large");
      assertThat(body.get("error").asText())
          .contains("larger than 4.0 MB (4000000 bytes)")
          .contains("resumable upload");
    }
  }

  @Test
  void aDevicesUnfinishedUploadsHoldAQuarterOfTheSpoolAtMostAndItsOldestIdleOneMakesRoom()
      throws Exception {
    String first;
    try (Response created = tusCreate(Gateway.TOKEN_A, 3_000_000)) {
      assertThat(created.code()).isEqualTo(201);
      first = created.header("Location");
    }
    try (Response other = tusCreate(Gateway.TOKEN_B, 3_000_000)) {
      assertThat(other.code()).as("another device has a share of its own").isEqualTo(201);
    }

    try (Response second = tusCreate(Gateway.TOKEN_A, 3_000_000)) {
      assertThat(second.code()).as("6 MB would pass the device's 4 MB").isEqualTo(201);
    }

    Request head =
        new Request.Builder()
            .url(fixture.gateway().url(first))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .header("Tus-Resumable", "1.0.0")
            .head()
            .build();
    try (Response gone = fixture.gateway().client().newCall(head).execute()) {
      assertThat(gone.code()).as("the idle first upload made room").isEqualTo(404);
    }
    assertThat(fixture.gateway().app().metrics().get("bolo_spool_bytes").gauge().value())
        .isEqualTo(6_000_000);
  }

  private Response tusCreate(long length) throws IOException {
    return tusCreate(Gateway.TOKEN_A, length);
  }

  private Response tusCreate(String token, long length) throws IOException {
    Request create =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/uploads"))
            .header("Authorization", "Bearer " + token)
            .header("Tus-Resumable", "1.0.0")
            .header("Upload-Length", Long.toString(length))
            .post(RequestBody.create(new byte[0]))
            .build();
    return fixture.gateway().client().newCall(create).execute();
  }

  /** What came back on a raw connection: the status and the body. */
  private record RawReply(int status, String body) {}

  /**
   * Sends a request's headers declaring {@code contentLength} and the first bytes of a form, never
   * the rest, and reads the answer.
   */
  private RawReply headersOnly(String path, long contentLength) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", fixture.gateway().app().port())) {
      socket.setSoTimeout(60_000);
      OutputStream out = socket.getOutputStream();
      String head =
          "POST "
              + path
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
              + Gateway.TOKEN_A
              + "\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: "
              + contentLength
              + "\r\n\r\n--b\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return read(socket.getInputStream());
    }
  }

  private static RawReply read(InputStream in) throws IOException {
    ByteArrayOutputStream headers = new ByteArrayOutputStream();
    while (!headers.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b == -1) {
        throw new IOException("closed before the headers ended: " + headers);
      }
      headers.write(b);
    }
    String text = headers.toString(StandardCharsets.ISO_8859_1);
    int status = Integer.parseInt(text.substring(9, 12));
    Matcher length =
        Pattern.compile("content-length: *(\\d+)").matcher(text.toLowerCase(Locale.ROOT));
    if (!length.find()) {
      throw new IOException("no Content-Length: " + text);
    }
    byte[] body = in.readNBytes(Integer.parseInt(length.group(1)));
    return new RawReply(status, new String(body, StandardCharsets.UTF_8));
  }
}
