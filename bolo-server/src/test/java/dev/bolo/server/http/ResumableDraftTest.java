package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The IETF resumable-upload draft (interop version 6) on {@code POST /v1/transcriptions}, spoken by
 * hand where {@code TusJsClientTest} cannot look: the 104 interim response, the answers that are
 * the transcription itself, and the refusals.
 */
class ResumableDraftTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType PARTIAL = MediaType.get("application/partial-upload");

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_TRIAL_SECONDS", "3600"));

  @Test
  void aWholeNoteInOnePostIsAnsweredWithTheTranscriptionAndTheUploadsLocation() throws Exception {
    byte[] note = TestAudio.wav(1000, 41);
    try (Socket socket =
        new Socket(InetAddress.getLoopbackAddress(), fixture.gateway().app().port())) {
      OutputStream out = socket.getOutputStream();
      String head =
          "POST /v1/transcriptions?language=en HTTP/1.1\r\n"
              + "Host: 127.0.0.1\r\n"
              + "Authorization: Bearer "
              + Gateway.TOKEN_A
              + "\r\n"
              + "Upload-Draft-Interop-Version: 6\r\n"
              + "Upload-Complete: ?1\r\n"
              + "X-Bolo-Audio-Sha256: "
              + TusUploadTest.sha256(note)
              + "\r\n"
              + "Content-Type: application/octet-stream\r\n"
              + "Content-Length: "
              + note.length
              + "\r\n"
              + "Connection: close\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(note);
      out.flush();
      String response = readAll(socket.getInputStream());

      // No interim response: Jetty cannot put a Location in a 104 (see ResumableDraftHandler).
      String last = response;
      assertThat(last).startsWith("HTTP/1.1 200");
      assertThat(last).containsPattern("(?i)location: /v1/uploads/[0-9a-f]{32}");
      assertThat(last).containsIgnoringCase("Upload-Complete: ?1");
      String body = last.substring(last.indexOf("\r\n\r\n") + 4);
      assertThat(JSON.readTree(body).get("text").asText()).endsWith(" in en");
    }
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(1000);
  }

  @Test
  void anUploadInTwoPartsAnswersTheCompletingPatchWithTheTranscription() throws Exception {
    byte[] note = TestAudio.wav(1500, 42);
    String location;
    try (Response created =
        call(
            draft("/v1/transcriptions?language=fr")
                .header("Upload-Complete", "?0")
                .header("Upload-Length", Integer.toString(note.length))
                .post(RequestBody.create(Arrays.copyOf(note, 20_000), PARTIAL)))) {
      assertThat(created.code()).isEqualTo(201);
      assertThat(created.header("Upload-Offset")).isEqualTo("20000");
      assertThat(created.header("Upload-Complete")).isEqualTo("?0");
      location = Objects.requireNonNull(created.header("Location"));
    }
    try (Response head = call(draft(location).head())) {
      assertThat(head.code()).isEqualTo(204);
      assertThat(head.header("Upload-Offset")).isEqualTo("20000");
      assertThat(head.header("Upload-Length")).isEqualTo(Integer.toString(note.length));
      assertThat(head.header("Cache-Control")).isEqualTo("no-store");
    }
    try (Response wrong =
        call(
            draft(location)
                .header("Upload-Offset", "10000")
                .header("Upload-Complete", "?1")
                .patch(
                    RequestBody.create(Arrays.copyOfRange(note, 10_000, note.length), PARTIAL)))) {
      assertThat(wrong.code()).isEqualTo(409);
      assertThat(wrong.header("Upload-Offset")).isEqualTo("20000");
    }

    try (Response done =
        call(
            draft(location)
                .header("Upload-Offset", "20000")
                .header("Upload-Complete", "?1")
                .patch(
                    RequestBody.create(Arrays.copyOfRange(note, 20_000, note.length), PARTIAL)))) {
      String body = done.body().string();
      assertThat(done.code()).as(body).isEqualTo(200);
      assertThat(done.header("Upload-Complete")).isEqualTo("?1");
      assertThat(JSON.readTree(body).get("audio_sha256").asText())
          .isEqualTo(TusUploadTest.sha256(note));
      assertThat(JSON.readTree(body).get("text").asText()).endsWith(" in fr");
    }
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void aDeclaredHashTheNoteContradictsIsAnswered400AndNothingIsTranscribed() throws Exception {
    byte[] note = TestAudio.wav(1000, 43);
    try (Response response =
        call(
            draft("/v1/transcriptions")
                .header("Upload-Complete", "?1")
                .header("X-Bolo-Audio-Sha256", TusUploadTest.sha256(TestAudio.wav(1000, 44)))
                .post(RequestBody.create(note, PARTIAL)))) {
      assertThat(response.code()).isEqualTo(400);
      assertThat(JSON.readTree(response.body().string()).get("code").asText())
          .isEqualTo("audio_hash_mismatch");
    }
    assertThat(fixture.provider().calls()).isZero();
    assertThat(fixture.ledger().chargedMillis("alpha")).isZero();
  }

  @Test
  void otherInteropVersionsMissingUploadCompleteAndAnotherDeviceAreRefused() throws Exception {
    byte[] note = TestAudio.wav(500, 45);
    try (Response response =
        call(
            draft("/v1/transcriptions")
                .header("Upload-Draft-Interop-Version", "5")
                .header("Upload-Complete", "?1")
                .post(RequestBody.create(note, PARTIAL)))) {
      assertThat(response.code()).isEqualTo(400);
    }
    try (Response response =
        call(draft("/v1/transcriptions").post(RequestBody.create(note, PARTIAL)))) {
      assertThat(response.code()).isEqualTo(400);
    }
    String location;
    try (Response created =
        call(
            draft("/v1/transcriptions")
                .header("Upload-Complete", "?0")
                .header("Upload-Length", Integer.toString(note.length))
                .post(RequestBody.create(new byte[0], PARTIAL)))) {
      location = Objects.requireNonNull(created.header("Location"));
    }
    Request other =
        new Request.Builder()
            .url(fixture.gateway().url(location))
            .header("Authorization", "Bearer " + Gateway.TOKEN_B)
            .header("Upload-Draft-Interop-Version", "6")
            .head()
            .build();
    try (Response response = fixture.gateway().client().newCall(other).execute()) {
      assertThat(response.code()).isEqualTo(404);
    }
    assertThat(fixture.provider().calls()).isZero();
  }

  private Request.Builder draft(String path) {
    return new Request.Builder()
        .url(fixture.gateway().url(path))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .header("Upload-Draft-Interop-Version", "6");
  }

  private Response call(Request.Builder request) throws IOException {
    return fixture.gateway().client().newCall(request.build()).execute();
  }

  private static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    in.transferTo(all);
    return all.toString(StandardCharsets.ISO_8859_1);
  }
}
