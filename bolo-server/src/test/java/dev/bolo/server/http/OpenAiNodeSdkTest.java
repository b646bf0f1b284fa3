package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.NodePackage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Node SDK ({@code openai} on npm, the version pinned in {@code
 * src/test/node/package.json}) as a real client of the gateway: a Node script makes the calls an
 * app makes and prints what came back. Node.js must be on the PATH ({@code .ci/run} installs it);
 * without it this test fails and says so rather than being skipped. The SDK is installed from the
 * lock file into {@code target/node} on first use.
 */
class OpenAiNodeSdkTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(Map.of("BOLO_OPENAI_MODELS", "whisper-1,gpt-4o-mini-transcribe"));

  @TempDir Path dataDir;

  @Test
  void theNodeSdkTranscribesStreamsTranslatesListsModelsAndReadsErrors() throws Exception {
    Path note = dataDir.resolve("note.wav");
    Files.write(note, TestAudio.wav(700, 41));
    Path bigNote = dataDir.resolve("big.wav");
    Files.write(bigNote, TestAudio.wav(300_000, 42));

    FakeProvider provider = fixture.provider();
    Gateway gateway = fixture.start(Map.of());
    provider
        .enqueue(json("{\"text\":\"a json answer\"}"))
        // Every format of whisper-1 is rendered from one verbose_json answer.
        .enqueue(json("{\"text\":\"a text answer\",\"segments\":[]}"))
        .enqueue(
            FakeProvider.eventStream(List.of("streamed", " text"), -1, new CountDownLatch(0), true))
        .enqueue(json("{\"text\":\"an english translation\"}"));

    JsonNode results = run(gateway, note, bigNote);

    assertThat(results.at("/json/text").asText()).isEqualTo("a json answer");
    assertThat(results.at("/text/text").asText()).isEqualTo("a text answer");
    assertThat(results.at("/stream/deltas"))
        .extracting(JsonNode::asText)
        .containsExactly("streamed", " text");
    assertThat(results.at("/stream/done").asText()).isEqualTo("streamed text");
    assertThat(results.at("/translation/text").asText()).isEqualTo("an english translation");
    assertThat(results.at("/models/ids"))
        .extracting(JsonNode::asText)
        .containsExactly("whisper-1", "gpt-4o-mini-transcribe");
    assertThat(results.at("/unauthorized/status").asInt()).isEqualTo(401);
    assertThat(results.at("/unauthorized/code").asText()).isEqualTo("unauthorized");
    assertThat(results.at("/missingPath/error").asText())
        .as(results.at("/missingPath").toString())
        .isEqualTo("NotFoundError");
    assertThat(results.at("/missingPath/status").asInt()).isEqualTo(404);
    assertThat(results.at("/missingPath/code").asText()).isEqualTo("not_found");
    assertThat(provider.calls()).isEqualTo(4);
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }

  private JsonNode run(Gateway gateway, Path note, Path bigNote) throws Exception {
    String output =
        installSdk()
            .run(
                "sdk-check.mjs",
                Map.of(
                    "BOLO_BASE_URL", gateway.url("/v1"),
                    "BOLO_TOKEN", Gateway.TOKEN_A,
                    "BOLO_NOTE", note.toAbsolutePath().toString(),
                    "BOLO_BIG_NOTE", bigNote.toAbsolutePath().toString()),
                Duration.ofMinutes(2),
                dataDir);
    return JSON.readTree(output);
  }

  /**
   * The SDK and the scripts that drive it, installed from the lock file into {@code target/node} on
   * first use; fails, saying what to install, when Node.js or npm is missing.
   */
  static NodePackage installSdk() throws IOException, InterruptedException {
    return NodePackage.install("node", "openai/package.json", "sdk-check.mjs", "offline-check.mjs");
  }
}
