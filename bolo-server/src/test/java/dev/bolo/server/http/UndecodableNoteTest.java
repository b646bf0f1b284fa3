package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OfflineGateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.testkit.CleanText;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An m4a recording cut short, its moov index lost, is a note FFmpeg cannot open: both transcription
 * endpoints answer 400 {@code invalid_audio} in Bolo's own words, whether the offline engine
 * decodes the note or the gateway decodes it to cut it into pieces for a provider. FFmpeg's text
 * goes to the log; it once reached the client with the 256 bytes of native memory around it.
 */
class UndecodableNoteTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the client is told, whichever decoder met the note. */
  private static final String SENTENCE =
      "the note cannot be opened as audio: its container is damaged, cut short or not one the"
          + " gateway reads";

  @RegisterExtension static final OfflineGateway offline = new OfflineGateway();

  /** A provider that takes 1 s a request: a note of an estimated 2 s is decoded into pieces. */
  @RegisterExtension
  final OpenAiGateway pieces = new OpenAiGateway(Map.of("BOLO_OPENAI_MAX_SECONDS", "1"));

  @Test
  void theOfflineEngineRefusesACutM4aInBolosWordsOnTheNativeEndpoint() throws Exception {
    assertRefusedNatively(offline.gateway().send(nativeUpload(offline.gateway())));
  }

  @Test
  void theOfflineEngineRefusesACutM4aInBolosWordsOnTheOpenAiEndpoint() throws Exception {
    assertRefusedInOpenAisShape(offline.gateway().send(openAiUpload(offline.gateway())));
  }

  @Test
  void cuttingACutM4aIntoPiecesRefusesItInBolosWordsOnTheNativeEndpoint() throws Exception {
    assertRefusedNatively(pieces.gateway().send(nativeUpload(pieces.gateway())));
    assertThat(pieces.provider().calls()).isZero();
  }

  @Test
  void cuttingACutM4aIntoPiecesRefusesItInBolosWordsOnTheOpenAiEndpoint() throws Exception {
    assertRefusedInOpenAisShape(pieces.gateway().send(openAiUpload(pieces.gateway())));
    assertThat(pieces.provider().calls()).isZero();
  }

  private static void assertRefusedNatively(Gateway.Reply reply) throws IOException {
    assertThat(reply.status()).as(reply.body()).isEqualTo(400);
    JsonNode body = JSON.readTree(reply.body());
    assertThat(body.path("code").asText()).isEqualTo("invalid_audio");
    assertThat(CleanText.check(body.path("error").asText())).isEqualTo(SENTENCE);
  }

  private static void assertRefusedInOpenAisShape(Gateway.Reply reply) throws IOException {
    assertThat(reply.status()).as(reply.body()).isEqualTo(400);
    JsonNode error = JSON.readTree(reply.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("invalid_audio");
    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(CleanText.check(error.path("message").asText())).isEqualTo(SENTENCE);
  }

  private static okhttp3.Request nativeUpload(Gateway gateway) throws IOException {
    return gateway.nativeUpload(Gateway.TOKEN_A, cutM4a());
  }

  private static okhttp3.Request openAiUpload(Gateway gateway) throws IOException {
    return Gateway.openAiUploadRequest(
        gateway.url("/v1/audio/transcriptions"), Gateway.TOKEN_A, cutM4a(), "model", "whisper-1");
  }

  /**
   * A 3.5 s m4a whose moov comes after its media data, cut at 8 KiB as a recording stopped short
   * is: the media data's start, no index. Its length cannot be measured, so the gateway estimates
   * it from the size and hands the note on, and only the decoder finds it cannot be opened.
   */
  static byte[] cutM4a() throws IOException {
    try (InputStream in =
        Objects.requireNonNull(
            UndecodableNoteTest.class.getResourceAsStream("/audio/aac-moov-at-end.m4a"))) {
      return Arrays.copyOf(in.readAllBytes(), 8192);
    }
  }
}
