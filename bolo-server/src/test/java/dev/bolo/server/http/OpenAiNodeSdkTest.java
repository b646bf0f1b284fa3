package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Node SDK ({@code openai} on npm, the version pinned in {@code
 * src/test/node/package.json}) as a real client of the gateway: a Node script makes the calls an
 * app makes and prints what came back. Node.js must be on the PATH ({@code .ci/run} installs it);
 * without it this test fails and says so rather than being skipped. The SDK is installed from the
 * lock file into {@code target/node-sdk} on first use.
 */
class OpenAiNodeSdkTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SCRIPT_SOURCE = Path.of("src", "test", "node");
  private static final Path SCRIPT_HOME = Path.of("target", "node-sdk");

  /** The SDK's engines field asks for Node 18 or later. */
  private static final int MIN_NODE_MAJOR = 18;

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(Map.of("BOLO_OPENAI_MODELS", "whisper-1,gpt-4o-mini-transcribe"));

  @TempDir Path dataDir;

  @Test
  void theNodeSdkTranscribesStreamsTranslatesListsModelsAndReadsErrors() throws Exception {
    requireNode();
    installSdk();
    Path note = dataDir.resolve("note.wav");
    Files.write(note, TestAudio.wav(700, 41));
    Path bigNote = dataDir.resolve("big.wav");
    Files.write(bigNote, TestAudio.wav(300_000, 42));

    FakeProvider provider = fixture.provider();
    Gateway gateway = fixture.start(Map.of());
    provider
        .enqueue(json("{\"text\":\"a json answer\"}"))
        .enqueue(new MockResponse.Builder().code(200).body("a text answer\n").build())
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
    assertThat(results.at("/missingPath/error").asText()).isEqualTo("NotFoundError");
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
    Path output = dataDir.resolve("node-output.json");
    Path errors = dataDir.resolve("node-errors.txt");
    ProcessBuilder node =
        new ProcessBuilder("node", "sdk-check.mjs")
            .directory(SCRIPT_HOME.toFile())
            .redirectOutput(output.toFile())
            .redirectError(errors.toFile());
    node.environment()
        .putAll(
            Map.of(
                "BOLO_BASE_URL", gateway.url("/v1"),
                "BOLO_TOKEN", Gateway.TOKEN_A,
                "BOLO_NOTE", note.toAbsolutePath().toString(),
                "BOLO_BIG_NOTE", bigNote.toAbsolutePath().toString()));
    Process process = node.start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail("the Node SDK script did not finish within 2 minutes: " + Files.readString(errors));
    }
    assertThat(process.exitValue()).as(Files.readString(errors)).isZero();
    return JSON.readTree(Files.readString(output, StandardCharsets.UTF_8));
  }

  /** Fails, saying what to install, when Node.js is missing or too old: never a silent skip. */
  private static void requireNode() throws InterruptedException {
    String version;
    try {
      version = output(new ProcessBuilder("node", "--version"), Path.of(".")).trim();
    } catch (IOException e) {
      throw new AssertionError(
          "Node.js is not on the PATH, so the official OpenAI Node SDK cannot be tested; install"
              + " Node.js "
              + MIN_NODE_MAJOR
              + "+ with npm (Debian: apt-get install nodejs npm; .ci/run does this)",
          e);
    }
    int major = Integer.parseInt(version.replaceFirst("^v", "").split("\\.")[0]);
    assertThat(major)
        .as("Node.js %s is too old for the OpenAI SDK; install %d+", version, MIN_NODE_MAJOR)
        .isGreaterThanOrEqualTo(MIN_NODE_MAJOR);
  }

  /** Copies the script and its lock file to target/ and installs the SDK there once. */
  private static void installSdk() throws IOException, InterruptedException {
    Files.createDirectories(SCRIPT_HOME);
    for (String file : List.of("package.json", "package-lock.json", "sdk-check.mjs")) {
      Files.copy(
          SCRIPT_SOURCE.resolve(file),
          SCRIPT_HOME.resolve(file),
          StandardCopyOption.REPLACE_EXISTING);
    }
    if (Files.exists(SCRIPT_HOME.resolve("node_modules/openai/package.json"))) {
      return;
    }
    try {
      output(
          new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"),
          SCRIPT_HOME);
    } catch (IOException e) {
      throw new AssertionError(
          "npm could not install the OpenAI Node SDK into "
              + SCRIPT_HOME
              + " (is npm installed and the npm registry reachable?): "
              + e.getMessage(),
          e);
    }
  }

  /** Runs a command to its end and returns its output; a failure is an IOException with it. */
  private static String output(ProcessBuilder command, Path directory)
      throws IOException, InterruptedException {
    Process process = command.directory(directory.toFile()).redirectErrorStream(true).start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command.command()) + " did not finish in 5 minutes");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command.command()) + " exited " + process.exitValue() + ": " + text);
    }
    return text;
  }
}
