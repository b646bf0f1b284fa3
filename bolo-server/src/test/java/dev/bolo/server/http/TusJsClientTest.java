package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.CuttingProxy;
import dev.bolo.testkit.NodePackage;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code tus-js-client} 4.3 (npm, the version pinned in {@code src/test/node-tus/package.json}) as
 * a real client of the gateway in both its {@code tus-v1} and {@code ietf-draft-05} protocols,
 * behind a proxy that cuts its append in the middle of the note: the client resumes from the
 * server's offset by itself.
 */
class TusJsClientTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NOTE_MILLIS = 10_000;
  private static final long CUT_AFTER_BYTES = 150_000;
  private static final long HEADER_BYTES = 8 * 1024;

  private static NodePackage tusJs;

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_TRIAL_SECONDS", "3600"));

  @BeforeAll
  static void install() throws Exception {
    tusJs = NodePackage.install("node-tus", "tus-js-client/package.json", "tus-check.mjs");
  }

  @Test
  void tusV1ResumesACutAppendAndTheTranscriptionIsFetchedFromTheUpload() throws Exception {
    byte[] note = TestAudio.wav(NOTE_MILLIS, 31);
    try (CuttingProxy proxy = CuttingProxy.start(fixture.gateway().app().port(), CUT_AFTER_BYTES)) {
      JsonNode result = run("tus-v1", proxy.url("/v1/uploads"), note);

      assertThat(result.get("ok").asBoolean()).as(result.toString()).isTrue();
      assertThat(result.get("retriedAfter")).as("the cut was noticed and retried").isNotEmpty();
      assertThat(proxy.cutsDone()).isEqualTo(1);
      // The note once, the part the cut lost, and a few requests' headers.
      assertThat(proxy.upstreamBytes())
          .as(result.toString())
          .isLessThan(note.length + CUT_AFTER_BYTES + HEADER_BYTES);
      String path = URI.create(result.get("url").asText()).getPath();
      JsonNode answer = transcription(path);
      assertThat(answer.get("audio_sha256").asText()).isEqualTo(TusUploadTest.sha256(note));
      assertThat(answer.get("text").asText()).endsWith(" in en");
    }
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
  }

  @Test
  void ietfDraft05ResumesACutAppendAndTheCompletingResponseIsTheTranscription() throws Exception {
    byte[] note = TestAudio.wav(NOTE_MILLIS, 32);
    try (CuttingProxy proxy = CuttingProxy.start(fixture.gateway().app().port(), CUT_AFTER_BYTES)) {
      JsonNode result = run("ietf-draft-05", proxy.url("/v1/transcriptions?language=en"), note);

      assertThat(result.get("ok").asBoolean()).as(result.toString()).isTrue();
      assertThat(result.get("retriedAfter")).as("the cut was noticed and retried").isNotEmpty();
      assertThat(proxy.cutsDone()).isEqualTo(1);
      assertThat(result.get("status").asInt()).isEqualTo(200);
      assertThat(result.get("uploadComplete").asText()).isEqualTo("?1");
      JsonNode answer = JSON.readTree(result.get("body").asText());
      assertThat(answer.get("audio_sha256").asText()).isEqualTo(TusUploadTest.sha256(note));
      assertThat(answer.get("text").asText()).endsWith(" in en");
      assertThat(answer.get("duration_ms").asLong()).isEqualTo(NOTE_MILLIS);
      // The note once, the part the cut lost, and a few requests' headers.
      assertThat(proxy.upstreamBytes())
          .as(result.toString())
          .isLessThan(note.length + CUT_AFTER_BYTES + HEADER_BYTES);
    }
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
  }

  private JsonNode run(String protocol, String endpoint, byte[] note) throws Exception {
    Path file = fixture.dataDir().resolve("note.wav");
    Files.write(file, note);
    String output =
        tusJs.run(
            "tus-check.mjs",
            Map.of(
                "BOLO_PROTOCOL",
                protocol,
                "BOLO_ENDPOINT",
                endpoint,
                "BOLO_TOKEN",
                Gateway.TOKEN_A,
                "BOLO_NOTE",
                file.toAbsolutePath().toString(),
                "BOLO_SHA256",
                TusUploadTest.sha256(note)),
            Duration.ofMinutes(2),
            fixture.dataDir());
    return JSON.readTree(output);
  }

  private JsonNode transcription(String path) throws IOException {
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url(path + "/transcription?wait=30"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .build();
    try (Response response = fixture.gateway().client().newCall(request).execute()) {
      String body = response.body().string();
      assertThat(response.code()).as(body).isEqualTo(200);
      return JSON.readTree(body);
    }
  }
}
