package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import mockwebserver3.MockResponse;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every transcript answer names the model that made it in {@code X-Bolo-Model}, after its alias was
 * resolved: here {@code whisper-1} stands for {@code whisper-large-v3}, the model the provider is
 * sent, while {@code gpt-4o-mini-transcribe} is offered under its own name. The JSON bodies stay as
 * they were.
 */
class ModelHeaderTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ALIAS = "whisper-1";
  private static final String MODEL = "whisper-large-v3";
  private static final String OTHER_MODEL = "gpt-4o-mini-transcribe";

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(
          Map.of(
              "BOLO_OPENAI_MODEL", MODEL,
              "BOLO_OPENAI_MODELS", MODEL + "," + OTHER_MODEL,
              "BOLO_MODEL_ALIASES", ALIAS + "=" + MODEL));

  @Test
  void everyOpenAiResponseFormatNamesTheModelTheAliasStandsFor() throws Exception {
    byte[] note = TestAudio.wav(700, 61);
    FakeProvider provider = fixture.provider();
    // One answer for every format: a whisper model's verbose_json, rendered by the gateway.
    provider.enqueue(
        new MockResponse.Builder()
            .code(200)
            .setHeader("Content-Type", "application/json")
            .body(
                "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":0.7,"
                    + "\"text\":\"hello there\",\"segments\":[{\"id\":0,\"start\":0.0,"
                    + "\"end\":0.7,\"text\":\" hello there\"}]}")
            .build());

    Gateway.Reply json = send(openAi("transcriptions", note, "model", ALIAS));
    List<Gateway.Reply> others = new ArrayList<>();
    for (String format : List.of("text", "srt", "vtt", "verbose_json")) {
      others.add(send(openAi("transcriptions", note, "model", ALIAS, "response_format", format)));
    }

    assertThat(json.status()).as(json.body()).isEqualTo(200);
    assertThat(json.model()).isEqualTo(MODEL);
    // OpenAI's shape, untouched: the model travels in the header only.
    assertThat(fieldNames(JSON.readTree(json.body()))).containsExactly("text");
    assertThat(others)
        .allSatisfy(
            reply -> {
              assertThat(reply.status()).as(reply.body()).isEqualTo(200);
              assertThat(reply.model()).isEqualTo(MODEL);
            });
    assertThat(FakeProvider.bodyText(provider.takeRequest()))
        .as("the model sent to the provider is the one named")
        .contains("name=\"model\"\r\n\r\n" + MODEL);
    assertThat(provider.calls()).as("every format rendered from one call").isEqualTo(1);
  }

  @Test
  void aModelAskedForByItsOwnNameOrByNoneIsNamedAsItIs() throws Exception {
    byte[] note = TestAudio.wav(700, 62);

    Gateway.Reply other = send(openAi("transcriptions", note, "model", OTHER_MODEL));
    Gateway.Reply byName = send(openAi("transcriptions", note, "model", MODEL));
    Gateway.Reply byDefault = send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));

    assertThat(other.status()).as(other.body()).isEqualTo(200);
    assertThat(other.model()).isEqualTo(OTHER_MODEL);
    assertThat(byName.model()).isEqualTo(MODEL);
    assertThat(byDefault.status()).as(byDefault.body()).isEqualTo(200);
    assertThat(byDefault.model()).isEqualTo(MODEL);
    assertThat(byDefault.replayed())
        .as("the model by name and by default are one work")
        .isEqualTo("true");
  }

  @Test
  void replaysNativeAnswersAndTranslationsNameTheModelAndRefusalsNone() throws Exception {
    byte[] note = TestAudio.wav(800, 63);
    Gateway.Reply first =
        send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, "model", ALIAS));
    Gateway.Reply again = send(openAi("transcriptions", note, "model", ALIAS));
    Gateway.Reply translated = send(openAi("translations", note, "model", ALIAS));
    Gateway.Reply refused = send(openAi("transcriptions", note, "model", "gpt-4o-transcribe"));

    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.model()).isEqualTo(MODEL);
    // The fields installed apps read, in their order, then what did the work (PROTOCOL v3).
    assertThat(fieldNames(JSON.readTree(first.body())))
        .containsExactly(
            "text", "deduplicated", "audio_sha256", "duration_ms", "request_id", "engine", "model");
    assertThat(JSON.readTree(first.body()).path("model").asText()).isEqualTo(MODEL);
    assertThat(again.replayed()).isEqualTo("true");
    assertThat(again.model()).isEqualTo(MODEL);
    assertThat(translated.status()).as(translated.body()).isEqualTo(200);
    assertThat(translated.model()).isEqualTo(MODEL);
    assertThat(refused.status()).isEqualTo(422);
    assertThat(refused.model()).as("no model made an answer that is refused").isNull();
  }

  @Test
  void aStreamNamesTheModelBeforeItsFirstEventAndSoDoesItsReplay() throws Exception {
    byte[] note = TestAudio.wav(700, 64);
    Request streamed = openAi("transcriptions", note, "model", ALIAS, "stream", "true");

    try (Response live = fixture.gateway().client().newCall(streamed).execute()) {
      assertThat(live.code()).isEqualTo(200);
      assertThat(live.header("Content-Type")).startsWith("text/event-stream");
      assertThat(live.header("X-Bolo-Model")).isEqualTo(MODEL);
      assertThat(live.body().string()).contains("transcript.text.done");
    }
    try (Response replay = fixture.gateway().client().newCall(streamed).execute()) {
      assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(replay.header("X-Bolo-Model")).isEqualTo(MODEL);
    }
  }

  @Test
  void aLookupNamesTheModelOfTheWorkItFound() throws Exception {
    byte[] note = TestAudio.wav(900, 65);
    assertThat(send(openAi("transcriptions", note, "model", ALIAS)).status()).isEqualTo(200);

    Gateway.Reply found =
        send(authorized("/v1/transcriptions/" + sha256(note) + "?model=" + ALIAS).get().build());

    assertThat(found.status()).as(found.body()).isEqualTo(200);
    assertThat(found.replayed()).isEqualTo("true");
    assertThat(found.model()).isEqualTo(MODEL);
  }

  @Test
  void aTusUploadsTranscriptionNamesTheModel() throws Exception {
    byte[] note = TestAudio.wav(1000, 66);
    String metadata =
        "model " + Base64.getEncoder().encodeToString(ALIAS.getBytes(StandardCharsets.UTF_8));
    String location;
    try (Response created =
        call(
            authorized("/v1/uploads")
                .header("Tus-Resumable", "1.0.0")
                .header("Upload-Length", Integer.toString(note.length))
                .header("Upload-Metadata", metadata)
                .post(RequestBody.create(new byte[0])))) {
      assertThat(created.code()).isEqualTo(201);
      location = Objects.requireNonNull(created.header("Location"));
    }
    try (Response appended =
        call(
            authorized(location)
                .header("Tus-Resumable", "1.0.0")
                .header("Upload-Offset", "0")
                .patch(
                    RequestBody.create(note, MediaType.get("application/offset+octet-stream"))))) {
      assertThat(appended.code()).isEqualTo(204);
    }

    Gateway.Reply answer = send(authorized(location + "/transcription?wait=30").get().build());

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.model()).isEqualTo(MODEL);
  }

  @Test
  void theDraftUploadThatCompletesANoteNamesTheModelInItsAnswer() throws Exception {
    byte[] note = TestAudio.wav(1000, 67);

    Gateway.Reply answer =
        send(
            authorized("/v1/transcriptions?model=" + ALIAS)
                .header("Upload-Draft-Interop-Version", "6")
                .header("Upload-Complete", "?1")
                .post(RequestBody.create(note, MediaType.get("application/partial-upload")))
                .build());

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.model()).isEqualTo(MODEL);
  }

  private Request openAi(String endpoint, byte[] audio, String... fields) {
    return Gateway.openAiUploadRequest(
        fixture.gateway().url("/v1/audio/" + endpoint), Gateway.TOKEN_A, audio, fields);
  }

  private Request.Builder authorized(String path) {
    return new Request.Builder()
        .url(fixture.gateway().url(path))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A);
  }

  private Gateway.Reply send(Request request) throws IOException {
    return fixture.gateway().send(request);
  }

  private Response call(Request.Builder request) throws IOException {
    return fixture.gateway().client().newCall(request.build()).execute();
  }

  private static List<String> fieldNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
