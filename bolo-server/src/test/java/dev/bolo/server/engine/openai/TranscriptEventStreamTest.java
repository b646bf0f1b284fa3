package dev.bolo.server.engine.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Transcript;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import okio.Buffer;
import org.junit.jupiter.api.Test;

class TranscriptEventStreamTest {

  private final List<String> deltas = new ArrayList<>();

  private EngineResult read(String stream) throws IOException {
    return TranscriptEventStream.read(new Buffer().writeUtf8(stream), deltas::add);
  }

  @Test
  void deltasPassThroughAndTheDoneEventIsTheTranscriptWithItsDuration() throws IOException {
    EngineResult result =
        read(
            ": keep-alive\n\n"
                + "event: transcript.text.delta\n"
                + "data: {\"type\":\"transcript.text.delta\",\"delta\":\"Hi\"}\n\n"
                + "data: {\"type\":\"transcript.text.delta\",\"delta\":\" you\"}\r\n\r\n"
                + "data: {\"type\":\"transcript.text.done\",\"text\":\"Hi you \","
                + "\"usage\":{\"type\":\"duration\",\"seconds\":2.5}}\n\n"
                + "data: [DONE]\n\n");
    assertThat(deltas).containsExactly("Hi", " you");
    assertThat(result)
        .isEqualTo(
            new EngineResult.Transcribed(
                Transcript.plain("Hi you", java.util.OptionalLong.of(2500)),
                "{\"type\":\"duration\",\"seconds\":2.5}"));
  }

  @Test
  void aUsageThatIsNoObjectOrTooLargeIsNotPassedOn() throws IOException {
    String huge = "x".repeat(2000);
    for (String usage : List.of("\"lots\"", "[1,2]", "{}", "{\"note\":\"" + huge + "\"}")) {
      EngineResult result =
          read(
              "data: {\"type\":\"transcript.text.done\",\"text\":\"ok\",\"usage\":"
                  + usage
                  + "}\n\n");
      assertThat(((EngineResult.Transcribed) result).usage()).as(usage).isNull();
    }
  }

  @Test
  void aStreamThatEndsWithoutItsDoneEventIsAFailure() throws IOException {
    EngineResult result = read("data: {\"type\":\"transcript.text.delta\",\"delta\":\"Hi\"}\n\n");
    assertThat(deltas).containsExactly("Hi");
    assertThat(result).isInstanceOf(EngineResult.Failed.class);
  }

  @Test
  void anErrorEventIsAFailureWithTheProvidersSanitisedMessage() throws IOException {
    EngineResult result =
        read(
            "event: error\n"
                + "data: {\"error\":{\"message\":\"overloaded at https://10.0.0.7/x\"}}\n\n");
    assertThat(result).isInstanceOf(EngineResult.Failed.class);
    assertThat(((EngineResult.Failed) result).message())
        .contains("overloaded")
        .doesNotContain("10.0.0.7");
  }

  @Test
  void aLastEventWithoutItsBlankLineStillCounts() throws IOException {
    EngineResult result = read("data: {\"type\":\"transcript.text.done\",\"text\":\"ok\"}");
    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
  }
}
