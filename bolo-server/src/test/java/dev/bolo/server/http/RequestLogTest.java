package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every device route, whatever protocol it speaks, writes one access line per request: the
 * request's id and device in the MDC, its method, path, the status the client got and the time it
 * took; and it echoes the id it logs.
 */
class RequestLogTest {

  private static final MediaType OCTETS = MediaType.get("application/offset+octet-stream");

  private static final Pattern ACCESS_LINE =
      Pattern.compile(
          "INFO dev\\.bolo\\.server\\.http\\.RequestLog .* - (\\S+ \\S+) -> (\\d{3}) in \\d+ ms");

  @RegisterExtension final OpenAiGateway fixture = new OpenAiGateway();

  private Gateway gateway() {
    return fixture.gateway();
  }

  @Test
  void anUploadALookupATusCreationAndARefusalEachWriteOneAccessLineWithTheirIdDeviceAndStatus()
      throws Exception {
    byte[] note = TestAudio.wav(400, 41);
    String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(note));
    try (LogCapture logs = LogCapture.start()) {
      Gateway.Reply upload =
          gateway().send(labelled(gateway().nativeUpload(Gateway.TOKEN_A, note), "log-upload"));
      Gateway.Reply lookup =
          gateway()
              .send(labelled(get("/v1/transcriptions/" + sha256, Gateway.TOKEN_A), "log-lookup"));
      Gateway.Reply tus =
          gateway()
              .send(
                  labelled(
                      new Request.Builder()
                          .url(gateway().url("/v1/uploads"))
                          .header("Authorization", "Bearer " + Gateway.TOKEN_A)
                          .header("Tus-Resumable", "1.0.0")
                          .header("Upload-Length", Integer.toString(note.length))
                          .post(RequestBody.create(new byte[0], MediaType.get("text/plain")))
                          .build(),
                      "log-tus"));
      Gateway.Reply refused =
          gateway().send(labelled(get("/v1/transcriptions/" + sha256, "unknown-token"), "log-401"));
      Gateway.Reply unlabelled = gateway().send(get("/v1/transcriptions/" + sha256, null));

      assertThat(List.of(upload.status(), lookup.status(), tus.status(), refused.status()))
          .containsExactly(200, 200, 201, 401);
      assertThat(unlabelled.requestId()).startsWith("srv-");
      // The line is written once the handler returns, which may be after the client has read.
      Await.until(() -> accessLines(logs).size() == 5, () -> "access lines in:\n" + logs.text());
      assertThat(lineOf(logs, "log-upload"))
          .contains("device=alpha", "POST /v1/transcriptions -> 200 in ");
      assertThat(lineOf(logs, "log-lookup"))
          .contains("device=alpha", "GET /v1/transcriptions/" + sha256 + " -> 200 in ");
      assertThat(lineOf(logs, "log-tus")).contains("device=alpha", "POST /v1/uploads -> 201 in ");
      assertThat(lineOf(logs, "log-401"))
          .contains("GET /v1/transcriptions/" + sha256 + " -> 401 in ")
          .doesNotContain("device=");
      assertThat(lineOf(logs, Objects.requireNonNull(unlabelled.requestId())))
          .contains(" -> 401 in ");
    }
  }

  @Test
  void aFailureThatEscapesTheHandlerIsLoggedUnderTheRequestsIdWithItsAccessLine() throws Exception {
    byte[] note = TestAudio.wav(400, 42);
    String location;
    try (Response created =
        gateway()
            .client()
            .newCall(
                tus(new Request.Builder().url(gateway().url("/v1/uploads")), note.length)
                    .post(RequestBody.create(new byte[0], MediaType.get("text/plain")))
                    .build())
            .execute()) {
      assertThat(created.code()).isEqualTo(201);
      location = Objects.requireNonNull(created.header("Location"));
    }
    Gateway.Reply first =
        gateway()
            .send(
                tus(new Request.Builder().url(gateway().url(location)), note.length)
                    .header("Upload-Offset", "0")
                    .patch(RequestBody.create(Arrays.copyOf(note, 1000), OCTETS))
                    .build());
    assertThat(first.status()).isEqualTo(204);
    // The server's spool breaks under it (a directory where the upload's file was): its fault.
    try (Stream<Path> files = Files.walk(fixture.dataDir())) {
      for (Path part : files.filter(f -> f.toString().endsWith(".part")).toList()) {
        Files.delete(part);
        Files.createDirectory(part);
      }
    }

    try (LogCapture logs = LogCapture.start()) {
      Gateway.Reply failed =
          gateway()
              .send(
                  labelled(
                      tus(new Request.Builder().url(gateway().url(location)), note.length)
                          .header("Upload-Offset", "1000")
                          .patch(RequestBody.create(Arrays.copyOfRange(note, 1000, 2000), OCTETS))
                          .build(),
                      "log-500"));

      assertThat(failed.status()).isEqualTo(500);
      Await.until(() -> accessLines(logs).size() == 1, () -> "access lines in:\n" + logs.text());
      assertThat(lineOf(logs, "log-500")).contains("PATCH " + location + " -> 500 in ");
      assertThat(logs.text())
          .containsPattern("ERROR \\S+\\.Routes request_id=log-500 - unexpected failure on PATCH");
    }
  }

  private static Request.Builder tus(Request.Builder request, long length) {
    return request
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .header("Tus-Resumable", "1.0.0")
        .header("Upload-Length", Long.toString(length));
  }

  private Request get(String path, @Nullable String token) {
    Request.Builder request = new Request.Builder().url(gateway().url(path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request.build();
  }

  private static Request labelled(Request request, String requestId) {
    return request.newBuilder().header("X-Bolo-Request-Id", requestId).build();
  }

  private static List<String> accessLines(LogCapture logs) {
    return Arrays.stream(logs.text().split("\n"))
        .filter(line -> ACCESS_LINE.matcher(line).matches())
        .toList();
  }

  /** The one access line naming {@code requestId}. */
  private static String lineOf(LogCapture logs, String requestId) {
    List<String> lines =
        accessLines(logs).stream()
            .filter(line -> line.contains("request_id=" + requestId))
            .toList();
    assertThat(lines).as("access lines of " + requestId).hasSize(1);
    return lines.get(0);
  }
}
