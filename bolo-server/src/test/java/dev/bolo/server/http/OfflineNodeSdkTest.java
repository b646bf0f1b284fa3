package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.offline.WordErrorRate;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OfflineGateway;
import dev.bolo.server.testing.SampleNotes;
import dev.bolo.testkit.NodePackage;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official OpenAI Node SDK against a gateway on its defaults (the offline engine, no provider
 * key), as an app that knows only OpenAI's model names uses it: {@code
 * src/test/node/offline-check.mjs} transcribes a spoken note as {@code whisper-1} and as {@code
 * gpt-4o-transcribe} in text, and lists the models. Node.js must be on the PATH; without it this
 * test fails and says so.
 */
class OfflineNodeSdkTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** As in OfflineOpenAiSdkTest: a third of the words wrong would be a note nobody could use. */
  private static final double MAX_WORD_ERROR_RATE = 0.3;

  @RegisterExtension static final OfflineGateway offline = new OfflineGateway();

  @Test
  void openAiModelNamesReachTheOfflineModelWhichEveryAnswerNames() throws Exception {
    SampleNotes note = SampleNotes.named("dentist");
    NodePackage sdk = OpenAiNodeSdkTest.installSdk();

    JsonNode results =
        JSON.readTree(
            sdk.run(
                "offline-check.mjs",
                Map.of(
                    "BOLO_BASE_URL", offline.gateway().url("/v1"),
                    "BOLO_TOKEN", Gateway.TOKEN_A,
                    "BOLO_NOTE", note.wav().toAbsolutePath().toString()),
                Duration.ofMinutes(2),
                offline.dataDir()));

    for (String call : new String[] {"json", "text"}) {
      JsonNode answer = results.get(call);
      assertThat(answer.path("status").asInt()).as("%s: %s", call, answer).isEqualTo(200);
      assertThat(answer.path("model").asText()).as(call).isEqualTo("moonshine-tiny-en");
      String text = answer.path("text").asText();
      assertThat(WordErrorRate.of(note.reference(), text))
          .as("%s: '%s' for '%s'", call, text, note.reference())
          .isLessThan(MAX_WORD_ERROR_RATE);
    }
    assertThat(results.at("/models/ids"))
        .extracting(JsonNode::asText)
        .contains("moonshine-tiny-en", "whisper-1", "gpt-4o-transcribe");
  }
}
