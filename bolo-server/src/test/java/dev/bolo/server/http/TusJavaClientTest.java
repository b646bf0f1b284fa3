package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.CuttingProxy;
import io.tus.java.client.TusClient;
import io.tus.java.client.TusURLMemoryStore;
import io.tus.java.client.TusUpload;
import io.tus.java.client.TusUploader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.util.Map;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * tus's own Java client ({@code io.tus.java.client:tus-java-client}) as a real client of {@code
 * /v1/uploads}, behind a proxy that cuts the first connection in the middle of the note.
 */
class TusJavaClientTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_TRIAL_SECONDS", "3600"));

  @Test
  void anUploadCutInTheMiddleIsResumedFromTheServersOffsetAndTranscribedOnce() throws Exception {
    byte[] note = TestAudio.wav(10_000, 21);
    try (CuttingProxy proxy = CuttingProxy.start(fixture.gateway().app().port(), 120_000)) {
      TusClient client = new TusClient();
      client.setUploadCreationURL(URI.create(proxy.url("/v1/uploads")).toURL());
      client.setHeaders(Map.of("Authorization", "Bearer " + Gateway.TOKEN_A));
      client.enableResuming(new TusURLMemoryStore());
      TusUpload upload = new TusUpload();
      upload.setSize(note.length);
      upload.setInputStream(new ByteArrayInputStream(note));
      upload.setFingerprint("note-21");
      upload.setMetadata(
          Map.of("filename", "note.wav", "language", "en", "sha256", TusUploadTest.sha256(note)));

      TusUploader first = client.createUpload(upload);
      first.setChunkSize(16 * 1024);
      // The link drops in the middle of the note: the client's append fails.
      assertThatThrownBy(
              () -> {
                while (first.uploadChunk() > -1) {
                  // keep sending
                }
                // Loopback socket buffers absorb the rest; the failure shows with the response.
                first.finish();
              })
          .isInstanceOf(IOException.class);
      assertThat(proxy.cutsDone()).isEqualTo(1);
      // A phone resumes a moment later, not in the microsecond after the cut: by then the server
      // has stored what arrived. (Asked sooner, before the cut append reached its handler, the
      // server truthfully answers the offset it has, and the client sends more again.)
      URL created = first.getUploadURL();
      Await.until(
          () -> serverOffset(created.getPath()) > 0,
          () -> "the server stored nothing of the cut append");

      // Resumed: the client asks the server's offset (HEAD) and sends the rest only.
      upload.setInputStream(new ByteArrayInputStream(note));
      TusUploader resumed = client.resumeUpload(upload);
      long resumedAt = resumed.getOffset();
      assertThat(resumedAt).isGreaterThan(0).isLessThan(note.length);
      resumed.setChunkSize(16 * 1024);
      while (resumed.uploadChunk() > -1) {
        // keep sending
      }
      resumed.finish();
      assertThat(resumed.getOffset()).isEqualTo(note.length);
      // Once the note and the part the cut lost, plus headers: nothing like a second whole note.
      assertThat(proxy.upstreamBytes()).isLessThan(note.length + 140_000L);

      String path = resumed.getUploadURL().getPath();
      Request answer =
          new Request.Builder()
              .url(fixture.gateway().url(path + "/transcription?wait=30"))
              .header("Authorization", "Bearer " + Gateway.TOKEN_A)
              .build();
      try (Response response = fixture.gateway().client().newCall(answer).execute()) {
        String body = response.body().string();
        assertThat(response.code()).as(body).isEqualTo(200);
        JsonNode json = JSON.readTree(body);
        assertThat(json.get("audio_sha256").asText()).isEqualTo(TusUploadTest.sha256(note));
        assertThat(json.get("duration_ms").asLong()).isEqualTo(10_000);
      }
    }
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(10_000);
  }

  /** The offset the gateway reports for an upload ({@code Upload-Offset} of a HEAD). */
  private long serverOffset(String path) {
    Request head =
        new Request.Builder()
            .url(fixture.gateway().url(path))
            .head()
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .header("Tus-Resumable", "1.0.0")
            .build();
    try (Response response = fixture.gateway().client().newCall(head).execute()) {
      String offset = response.header("Upload-Offset");
      return offset == null ? -1 : Long.parseLong(offset);
    } catch (IOException e) {
      return -1;
    }
  }
}
