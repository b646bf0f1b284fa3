package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bolo.server.engine.ClientText;
import dev.bolo.testkit.CleanText;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The shapes one error takes in each dialect, and which paths speak which dialect. */
class ErrorWriterTest {

  private static final ApiError MISMATCH =
      Errors.hashMismatch("X-Bolo-Audio-Sha256", "a".repeat(64), "b".repeat(64));

  @Test
  void theNativeBodyCarriesTheMessageTheCodeAndTheRequestId() throws IOException {
    JsonNode body = HttpJson.MAPPER.readTree(ErrorWriter.body(Dialect.NATIVE, MISMATCH, "req-1"));

    assertThat(body.path("code").asText()).isEqualTo("audio_hash_mismatch");
    assertThat(body.path("request_id").asText()).isEqualTo("req-1");
    assertThat(body.path("error").asText())
        .startsWith("X-Bolo-Audio-Sha256 " + "a".repeat(64) + " does not match");
  }

  @Test
  void theOpenAiBodyNestsTheErrorWithItsTypeAndTheParameterAtFault() throws IOException {
    JsonNode error =
        HttpJson.MAPPER.readTree(ErrorWriter.body(Dialect.OPENAI, MISMATCH, "req-1")).path("error");

    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("param").asText()).isEqualTo("X-Bolo-Audio-Sha256");
    assertThat(error.path("code").asText()).isEqualTo("audio_hash_mismatch");
  }

  @Test
  void anErrorWithoutAParameterNamesItsParamAsNullInOpenAisShape() throws IOException {
    JsonNode error =
        HttpJson.MAPPER
            .readTree(ErrorWriter.body(Dialect.OPENAI, Errors.unauthorized(), "req-1"))
            .path("error");

    assertThat(error.has("param")).isTrue();
    assertThat(error.path("param").isNull()).isTrue();
    assertThat(error.path("type").asText()).isEqualTo("authentication_error");
  }

  @Test
  void anyMessageIsWrittenAsOneCleanLineOfBoundedLengthInBothShapes() throws IOException {
    // What a library's 256-byte buffer once put in a 400: its words, NUL, then native memory.
    String leaked =
        "not a recognised audio container: Invalid data found when processing input\u0000"
            + "java/lang/String;Ljava/lang/invoke/\u0001\u00ff\uFFFD\r\n"
            + "x".repeat(5000);
    ApiError error = new ApiError(400, "invalid_audio", leaked, "file\u0000\n", null);

    JsonNode nativeBody =
        HttpJson.MAPPER.readTree(ErrorWriter.body(Dialect.NATIVE, error, "req-1"));
    JsonNode openAi =
        HttpJson.MAPPER.readTree(ErrorWriter.body(Dialect.OPENAI, error, "req-1")).path("error");

    for (String message :
        new String[] {nativeBody.path("error").asText(), openAi.path("message").asText()}) {
      CleanText.check(message);
      assertThat(message)
          .startsWith(
              "not a recognised audio container: Invalid data found when processing input"
                  + " java/lang/String;Ljava/lang/invoke/ \u00ff x")
          .hasSize(ClientText.MOST_CHARS)
          .endsWith("…");
    }
    assertThat(openAi.path("param").asText()).isEqualTo("file");
  }

  @Test
  void aMessageWithNothingPrintableLeftIsItsCodeInWords() throws IOException {
    ApiError error = new ApiError(400, "invalid_audio", "\u0000\u0001\n", "\u0000", null);

    JsonNode openAi =
        HttpJson.MAPPER.readTree(ErrorWriter.body(Dialect.OPENAI, error, "req-1")).path("error");

    assertThat(openAi.path("message").asText()).isEqualTo("invalid audio");
    assertThat(openAi.path("param").isNull()).isTrue();
  }

  @Test
  void theAudioAndModelsRoutesSpeakOpenAiAndEveryOtherPathNative() {
    assertThat(Dialect.of("/v1/audio/transcriptions")).isEqualTo(Dialect.OPENAI);
    assertThat(Dialect.of("/v1/audio/nowhere")).isEqualTo(Dialect.OPENAI);
    assertThat(Dialect.of("/v1/models")).isEqualTo(Dialect.OPENAI);
    assertThat(Dialect.of("/v1/models/whisper-1")).isEqualTo(Dialect.OPENAI);
    assertThat(Dialect.of("/v1/modelsx")).isEqualTo(Dialect.NATIVE);
    assertThat(Dialect.of("/v1/transcriptions")).isEqualTo(Dialect.NATIVE);
    assertThat(Dialect.of(null)).isEqualTo(Dialect.NATIVE);
  }

  @Test
  void eachDialectNamesTheFormFieldItsAudioArrivesIn() {
    assertThat(Dialect.NATIVE.audioField()).isEqualTo("audio");
    assertThat(Dialect.OPENAI.audioField()).isEqualTo("file");
  }
}
