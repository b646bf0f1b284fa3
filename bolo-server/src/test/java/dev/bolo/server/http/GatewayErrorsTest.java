package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad input gets a clear error with the right status, and the provider is never called. */
class GatewayErrorsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int LIMIT = 1024 * 1024;

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(
          Map.of(
              "BOLO_MAX_UPLOAD_BYTES",
              Integer.toString(LIMIT),
              "BOLO_UPLOAD_MEMORY_BYTES",
              "65536",
              "BOLO_UPSTREAM_TIMEOUT",
              "1s",
              "BOLO_UPSTREAM_TIMEOUT_MAX",
              "1s",
              "BOLO_CLIENT_READ_TIMEOUT",
              "100ms",
              "BOLO_CLIENT_READ_TIMEOUT_MAX",
              "100ms",
              "BOLO_CLIENT_RESEND_PAUSES",
              "100ms"));

  @Test
  void aHashMismatchIsRefusedAndNothingIsTranscribed() throws Exception {
    byte[] note = TestAudio.wav(500, 1);
    Request request =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .header("X-Bolo-Audio-Sha256", "ab".repeat(32))
            .build();
    assertError(fixture.gateway().send(request), 400, "audio_hash_mismatch");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void aMatchingHashInAnyCaseIsAccepted() throws Exception {
    byte[] note = TestAudio.wav(500, 2);
    String sha =
        HexFormat.of()
            .withUpperCase()
            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(note));
    Request request =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .header("X-Bolo-Audio-Sha256", sha)
            .build();
    Gateway.Reply reply = fixture.gateway().send(request);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).get("audio_sha256").asText())
        .isEqualTo(sha.toLowerCase());
    assertThat(JSON.readTree(reply.body()).get("duration_ms").asLong()).isEqualTo(500);
  }

  @Test
  void anOversizedUploadWithItsLengthDeclaredIsRefusedAtOnce() throws Exception {
    byte[] note = TestAudio.wav(100_000, 3); // 3.2 MB: over the 1 MiB limit plus form overhead
    Gateway.Reply reply =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertError(reply, 413, "audio_too_large");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void anOversizedStreamedUploadGetsItsAnswerAndLeavesNothingBehind() throws Exception {
    long size = 3L * LIMIT;
    RequestBody endless =
        new RequestBody() {
          @Override
          public MediaType contentType() {
            return MediaType.get("audio/wav");
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            byte[] head = TestAudio.wav(10, 4);
            sink.write(head);
            byte[] chunk = new byte[8192];
            for (long written = head.length; written < size; written += chunk.length) {
              sink.write(chunk);
            }
          }
        };
    MultipartBody form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart("audio", "big.wav", endless)
            .build();
    // Chunked: the server cannot know the size up front and must stop while reading.
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(form)
            .build();
    Gateway.Reply reply = fixture.gateway().send(request);
    assertError(reply, 413, "audio_too_large");
    assertThat(fixture.provider().calls()).isZero();
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aLargeNoteIsSpooledToDiskAndTheFileIsDeletedAfterwards() throws Exception {
    byte[] note = TestAudio.wav(20_000, 5); // 640 KB: over the 64 KiB in-memory threshold
    Gateway.Reply reply =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).get("text").asText()).startsWith("transcript of ");
    assertThat(JSON.readTree(reply.body()).get("duration_ms").asLong()).isEqualTo(20_000);
    assertThat(fixture.provider().takeRequest().getBodySize()).isGreaterThan(note.length);
    // The request lets go of its spool file just after its answer is written.
    Await.until(() -> spoolFiles().isEmpty(), () -> "spool files left: " + spoolFiles());
  }

  @Test
  void somethingThatIsNotAudioIsRefusedAsUnsupported() throws Exception {
    byte[] text = "this is a shopping list, not a voice note".getBytes(StandardCharsets.UTF_8);
    assertError(
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, text)),
        415,
        "unsupported_audio");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void aBodyThatIsNotMultipartIsRefusedAsUnsupported() throws Exception {
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(RequestBody.create("{\"audio\":\"…\"}", MediaType.get("application/json")))
            .build();
    assertError(fixture.gateway().send(request), 415, "unsupported_audio");
  }

  @Test
  void missingOrEmptyAudioIsABadRequest() throws Exception {
    Request missing =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(
                new MultipartBody.Builder()
                    .setType(MultipartBody.FORM)
                    .addFormDataPart("language", "en")
                    .build())
            .build();
    assertError(fixture.gateway().send(missing), 400, "missing_audio");
    assertError(
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, new byte[0])),
        400,
        "empty_audio");
    // A WAV whose data chunk holds no sample: a header, no note.
    assertError(
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(0, 1))),
        400,
        "empty_audio");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void aMissingOrUnknownTokenIsUnauthorized() throws Exception {
    byte[] note = TestAudio.wav(500, 6);
    assertError(
        fixture.gateway().send(fixture.gateway().nativeUpload(null, note)), 401, "unauthorized");
    assertError(
        fixture.gateway().send(fixture.gateway().nativeUpload("not-a-device", note)),
        401,
        "unauthorized");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void anOutOfRangeSettingIsAnInvalidParameter() throws Exception {
    byte[] note = TestAudio.wav(500, 7);
    assertError(
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "temperature", "7")),
        400,
        "invalid_parameter");
    assertError(
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "response_format", "mp3")),
        400,
        "invalid_parameter");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void theBoundaryParameterIsFoundInAnyCase() throws Exception {
    Request upload = fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(500, 11));
    RequestBody form = java.util.Objects.requireNonNull(upload.body());
    String type = String.valueOf(form.contentType()).replace("boundary=", "BoUnDaRy=");
    RequestBody renamed =
        new RequestBody() {
          @Override
          public MediaType contentType() {
            return MediaType.get(type);
          }

          @Override
          public long contentLength() throws IOException {
            return form.contentLength();
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            form.writeTo(sink);
          }
        };

    Gateway.Reply reply = fixture.gateway().send(upload.newBuilder().post(renamed).build());

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
  }

  @Test
  void aHashHeaderGivenTwiceIsAnInvalidParameterNotAGuess() throws Exception {
    byte[] note = TestAudio.wav(500, 10);
    String right =
        HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(note));
    Request request =
        fixture
            .gateway()
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .addHeader("X-Bolo-Audio-Sha256", right)
            .addHeader("X-Bolo-Audio-Sha256", "0".repeat(64))
            .build();
    Gateway.Reply twice = fixture.gateway().send(request);
    assertError(twice, 400, "invalid_parameter");
    assertThat(twice.body()).contains("X-Bolo-Audio-Sha256 must be given at most once");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void aSettingGivenTwiceIsAnInvalidParameterNotAGuess() throws Exception {
    byte[] note = TestAudio.wav(500, 9);
    Gateway.Reply twice =
        fixture
            .gateway()
            .send(
                fixture
                    .gateway()
                    .nativeUpload(Gateway.TOKEN_A, note, "language", "de", "language", "en"));
    assertError(twice, 400, "invalid_parameter");
    assertThat(twice.body()).contains("language must be given at most once");
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void theProviderRefusingTheAudioIsUnprocessable() throws Exception {
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(400)
                .body(
                    "{\"error\":{\"message\":\"Audio file is too short\",\"type\":\"invalid_request_error\"}}")
                .build());
    Gateway.Reply reply =
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(50, 8)));
    JsonNode body = assertError(reply, 422, "upstream_rejected");
    assertThat(body.get("error").asText()).contains("Audio file is too short");
  }

  @Test
  void aWrongProviderKeyIsABadGatewayNotTheDevicesFault() throws Exception {
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(401)
                .body("{\"error\":{\"message\":\"bad key\"}}")
                .build());
    assertError(
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(50, 9))),
        502,
        "upstream_error");
  }

  @Test
  void providerRateLimitingIsUnavailableWithRetryAfter() throws Exception {
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder().code(429).setHeader("Retry-After", "12").body("{}").build());
    Gateway.Reply reply =
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(50, 10)));
    assertError(reply, 503, "upstream_unavailable");
    assertThat(reply.retryAfter()).isEqualTo("12");
  }

  @Test
  void aSlowProviderIsAGatewayTimeout() throws Exception {
    fixture.provider().delay(Duration.ofSeconds(3));
    assertError(
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(50, 11))),
        504,
        "upstream_timeout");
  }

  @Test
  void nonsenseFromTheProviderIsABadGateway() throws Exception {
    fixture
        .provider()
        .enqueue(new MockResponse.Builder().code(200).body("<html>oops</html>").build());
    assertError(
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(50, 12))),
        502,
        "upstream_error");
  }

  @Test
  void aProviderThatIsDownIsUnavailable() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (FakeProvider unused = new FakeProvider();
        Gateway down =
            Gateway.openAi(
                unused,
                fixture.dataDir(),
                Map.of("BOLO_OPENAI_BASE_URL", "http://127.0.0.1:" + closedPort + "/v1"))) {
      Gateway.Reply reply = down.send(down.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(50, 13)));
      assertThat(reply.status()).isEqualTo(503);
      assertThat(JSON.readTree(reply.body()).get("code").asText())
          .isEqualTo("upstream_unavailable");
    }
  }

  @Test
  void anAnswerLongerThanItsContentLengthDoesNotBecomeTheNextNotesAnswer() throws Exception {
    // A provider that counts its Content-Length in characters: "é" and "ö" are two bytes each.
    String first = "{\"text\":\"h\u00e9llo w\u00f6rld\"}";
    String second = "{\"text\":\"second note\"}";
    List<byte[]> answers =
        List.of(
            answer(first, first.length()),
            answer(second, second.getBytes(StandardCharsets.UTF_8).length),
            answer(second, second.getBytes(StandardCharsets.UTF_8).length));
    List<java.net.Socket> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (ServerSocket provider = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        FakeProvider unused = new FakeProvider()) {
      AtomicInteger calls = new AtomicInteger();
      Thread.ofPlatform().daemon().start(() -> serveInTurn(provider, answers, calls, connections));
      try (Gateway lying =
          Gateway.openAi(
              unused,
              fixture.dataDir(),
              Map.of(
                  "BOLO_OPENAI_BASE_URL", "http://127.0.0.1:" + provider.getLocalPort() + "/v1"))) {
        Gateway.Reply cut = lying.send(lying.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(300, 21)));
        assertError(cut, 502, "upstream_error");

        Gateway.Reply next =
            lying.send(lying.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(300, 22)));

        assertThat(next.status()).as(next.body()).isEqualTo(200);
        assertThat(JSON.readTree(next.body()).get("text").asText()).isEqualTo("second note");
        assertThat(calls).hasValue(2);
      }
    } finally {
      for (java.net.Socket connection : connections) {
        connection.close();
      }
    }
  }

  private static byte[] answer(String json, int contentLength) {
    return ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + contentLength
            + "\r\n\r\n"
            + json)
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Answers the requests on every connection with {@code answers}, in the order they arrive. */
  private static void serveInTurn(
      ServerSocket server,
      List<byte[]> answers,
      AtomicInteger calls,
      List<java.net.Socket> connections) {
    while (!server.isClosed()) {
      java.net.Socket connection;
      try {
        connection = server.accept();
      } catch (IOException closed) {
        return;
      }
      connections.add(connection);
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                try (java.net.Socket socket = connection) {
                  java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
                  while (true) {
                    long length = -1;
                    for (String line = readLine(in); ; line = readLine(in)) {
                      if (line == null) {
                        return;
                      }
                      if (line.isEmpty()) {
                        break;
                      }
                      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                        length = Long.parseLong(line.substring(15).trim());
                      }
                    }
                    in.skipNBytes(length);
                    socket.getOutputStream().write(answers.get(calls.getAndIncrement()));
                    socket.getOutputStream().flush();
                  }
                } catch (IOException | RuntimeException e) {
                  // The gateway closed the connection.
                }
              });
    }
  }

  private static @org.jspecify.annotations.Nullable String readLine(java.io.InputStream in)
      throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b != -1; b = in.read()) {
      if (b == '\n') {
        return line.toString().strip();
      }
      line.append((char) b);
    }
    return null;
  }

  private List<Path> spoolFiles() {
    Path spool = fixture.dataDir().resolve("spool");
    if (!Files.exists(spool)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(Files::isRegularFile).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode assertError(Gateway.Reply reply, int status, String code)
      throws IOException {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(reply.body());
    assertThat(body.get("code").asText()).isEqualTo(code);
    assertThat(body.get("error").isTextual()).isTrue();
    assertThat(body.get("request_id").asText()).isNotBlank();
    return body;
  }
}
