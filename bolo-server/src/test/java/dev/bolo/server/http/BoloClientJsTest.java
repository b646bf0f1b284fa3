package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.CuttingProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bolo's JavaScript client ({@code bolo-client-js}, run from its source by {@code
 * src/test/node/bolo-client-js/client-check.mjs}) against a real gateway, behind the test kit's
 * cutting proxy: a long note whose upload is cut resumes and is transcribed and charged once; a
 * note cancelled mid-upload is neither resent nor charged; a job handed over twice under one key is
 * one job, read back with its transcript. Node.js must be on the PATH; without it this test fails
 * and says so.
 */
class BoloClientJsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SCRIPT =
      Path.of("src", "test", "node", "bolo-client-js", "client-check.mjs");

  /** 10 s of 16 kHz WAV, 320 KB: over the client's 256 KiB, so it goes as a tus upload. */
  private static final int NOTE_MILLIS = 10_000;

  private static final long CUT_AFTER_BYTES = 150_000;
  private static final long HEADER_BYTES = 8 * 1024;

  /** A phone's uplink, roughly: Node's fetch opens connections in no fixed order. */
  private static final long BYTES_PER_SECOND = 4_000_000;

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_TRIAL_SECONDS", "3600"));

  @Test
  void aLongNoteCutMidUploadResumesAndIsTranscribedAndChargedOnce() throws Exception {
    byte[] note = TestAudio.wav(NOTE_MILLIS, 51);
    JsonNode result;
    try (CuttingProxy proxy =
        CuttingProxy.cuttingTheFirstConnectionPast(
            fixture.gateway().app().port(), CUT_AFTER_BYTES, BYTES_PER_SECOND)) {
      result = run(proxy.url("/"), note, Map.of("BOLO_MODE", "transcribe"));

      assertThat(proxy.cutsDone()).isEqualTo(1);
      // The note once, the part the cut lost, and a few requests' headers: never the note twice.
      assertThat(proxy.upstreamBytes())
          .as(result.toString())
          .isLessThan(note.length + CUT_AFTER_BYTES + HEADER_BYTES);
    }
    assertThat(result.get("ok").asBoolean()).as(result.toString()).isTrue();
    JsonNode transcript = result.get("transcript");
    assertThat(transcript.get("text").asText()).endsWith(" in en");
    assertThat(transcript.get("audioSha256").asText()).isEqualTo(TusUploadTest.sha256(note));
    assertThat(transcript.get("durationMs").asLong()).isEqualTo(NOTE_MILLIS);
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
  }

  @Test
  void aNoteCancelledMidUploadIsNeitherResentNorCharged() throws Exception {
    byte[] note = TestAudio.wav(NOTE_MILLIS, 52);

    JsonNode result =
        run(
            fixture.gateway().url("/"),
            note,
            Map.of("BOLO_MODE", "cancel", "BOLO_CANCEL_AFTER_BYTES", "100000"));

    assertThat(result.get("ok").asBoolean()).as(result.toString()).isFalse();
    assertThat(result.at("/error/name").asText()).isEqualTo("BoloError");
    assertThat(result.at("/error/code").asText()).isEqualTo("cancelled");
    assertThat(result.at("/error/attempts").asInt()).isEqualTo(1);
    assertThat(result.get("attempts")).as("no resend").hasSize(1);
    assertThat(fixture.provider().calls()).isZero();
    assertThat(fixture.ledger().chargedMillis("alpha")).isZero();
  }

  @Test
  void aJobSubmittedTwiceUnderOneKeyIsOneJobReadBackWithItsTranscript() throws Exception {
    byte[] note = TestAudio.wav(3_000, 53);

    JsonNode submitted = run(fixture.gateway().url("/"), note, Map.of("BOLO_MODE", "submit-job"));

    String id = submitted.at("/first/id").asText();
    assertThat(id).startsWith("job_");
    assertThat(submitted.at("/again/id").asText()).isEqualTo(id);
    assertThat(submitted.at("/first/metadata/order").asText()).isEqualTo("A-17");
    assertThat(submitted.at("/first/audioSha256").asText()).isEqualTo(TusUploadTest.sha256(note));
    Await.until(() -> statusOf(id).equals("succeeded"), () -> id + " is " + statusOf(id));

    JsonNode read =
        run(fixture.gateway().url("/"), note, Map.of("BOLO_MODE", "read-job", "BOLO_JOB_ID", id));

    assertThat(read.at("/read/status").asText()).as(read.toString()).isEqualTo("succeeded");
    assertThat(read.at("/read/result/text").asText()).endsWith(" in en");
    // A job that ended stays as it ended.
    assertThat(read.at("/cancelled/status").asText()).isEqualTo("succeeded");
    assertThat(read.at("/missing/status").asInt()).isEqualTo(404);
    assertThat(read.at("/missing/code").asText()).isEqualTo("not_found");
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(3_000);
  }

  /** The job's status as the gateway answers it now. */
  private String statusOf(String id) {
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/jobs/" + id))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .build();
    try {
      return JSON.readTree(fixture.gateway().send(request).body()).path("status").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private JsonNode run(String baseUrl, byte[] note, Map<String, String> env) throws Exception {
    Path file = fixture.dataDir().resolve("note.wav");
    Files.write(file, note);
    ProcessBuilder node =
        new ProcessBuilder("node", SCRIPT.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    node.environment()
        .putAll(
            Map.of(
                "BOLO_BASE_URL",
                baseUrl,
                "BOLO_TOKEN",
                Gateway.TOKEN_A,
                "BOLO_NOTE",
                file.toAbsolutePath().toString()));
    node.environment().putAll(env);
    Process process;
    try {
      process = node.start();
    } catch (IOException e) {
      throw new AssertionError(
          "Node.js is not on the PATH, so the JavaScript client cannot be tested; install it"
              + " (Debian: apt-get install nodejs; .ci/run does this)",
          e);
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail("the client's script did not finish in 2 minutes: " + output);
    }
    assertThat(process.exitValue()).as(output).isZero();
    return JSON.readTree(output);
  }
}
