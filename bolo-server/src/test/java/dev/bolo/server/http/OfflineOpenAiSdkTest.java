package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.models.audio.AudioResponseFormat;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.audio.transcriptions.TranscriptionCreateResponse;
import com.openai.models.models.Model;
import dev.bolo.server.engine.offline.WordErrorRate;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OfflineGateway;
import dev.bolo.server.testing.SampleNotes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official OpenAI Java SDK against a gateway on its defaults (the offline engine, no provider
 * key): a spoken note sent as {@code whisper-1}, the name every OpenAI SDK sends, is transcribed by
 * the offline model, and the answer names that model in {@code X-Bolo-Model}.
 */
class OfflineOpenAiSdkTest {

  /**
   * The offline model makes about 13 % word errors on the sample notes' synthetic voices
   * (OfflineRecognitionTest); a third of the words wrong would be a note nobody could use.
   */
  private static final double MAX_WORD_ERROR_RATE = 0.3;

  @RegisterExtension static final OfflineGateway offline = new OfflineGateway();

  private OpenAIClient sdk;

  @BeforeEach
  void connect() {
    sdk =
        OpenAIOkHttpClient.builder()
            .baseUrl(offline.gateway().url("/v1"))
            .apiKey(Gateway.TOKEN_A)
            // A retry would hide what the gateway answered the first time.
            .maxRetries(0)
            .timeout(Duration.ofSeconds(60))
            .build();
  }

  @AfterEach
  void close() {
    sdk.close();
  }

  @Test
  void aSpokenNoteSentAsWhisper1IsTranscribedByTheOfflineModelWhichTheAnswerNames() {
    SampleNotes note = SampleNotes.named("groceries");
    TranscriptionCreateParams params =
        TranscriptionCreateParams.builder().file(note.wav()).model("whisper-1").build();

    try (HttpResponseFor<TranscriptionCreateResponse> raw =
        sdk.audio().transcriptions().withRawResponse().create(params)) {
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(raw.headers().values("X-Bolo-Model")).containsExactly("moonshine-tiny-en");
      String text = raw.parse().asTranscription().text();
      assertThat(WordErrorRate.of(note.reference(), text))
          .as("'%s' for '%s'", text, note.reference())
          .isLessThan(MAX_WORD_ERROR_RATE);
    }
  }

  @Test
  void anotherOpenAiNameInTextFormatIsTheSameModelAndAnswersPlainText() throws IOException {
    SampleNotes note = SampleNotes.named("report");
    TranscriptionCreateParams params =
        TranscriptionCreateParams.builder()
            .file(note.wav())
            .model("gpt-4o-transcribe")
            .responseFormat(AudioResponseFormat.TEXT)
            .build();

    try (HttpResponseFor<TranscriptionCreateResponse> raw =
        sdk.audio().transcriptions().withRawResponse().create(params)) {
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(raw.headers().values("X-Bolo-Model")).containsExactly("moonshine-tiny-en");
      String text = new String(raw.body().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(text).doesNotStartWith("{");
      assertThat(WordErrorRate.of(note.reference(), text))
          .as("'%s' for '%s'", text, note.reference())
          .isLessThan(MAX_WORD_ERROR_RATE);
    }
  }

  @Test
  void theModelsListNamesTheOfflineModelAndTheOpenAiNamesItAnswersTo() {
    assertThat(sdk.models().list().data())
        .extracting(Model::id)
        .containsExactly(
            "moonshine-tiny-en", "whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe");
  }

  @Test
  void aModelNotOfferedIsRefusedWithEveryNameThatIsAcceptedOnBothEndpoints() throws IOException {
    Gateway gateway = offline.gateway();
    byte[] note = SampleNotes.named("groceries").bytes();
    String accepted =
        "allowed: moonshine-tiny-en (also asked for as whisper-1, gpt-4o-transcribe,"
            + " gpt-4o-mini-transcribe)";

    Gateway.Reply nativeReply =
        gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note, "model", "whisper-large-v3"));
    Gateway.Reply openAiReply =
        gateway.send(
            Gateway.openAiUploadRequest(
                gateway.url("/v1/audio/transcriptions"),
                Gateway.TOKEN_A,
                note,
                "model",
                "whisper-large-v3"));

    assertThat(nativeReply.status()).isEqualTo(422);
    assertThat(nativeReply.body())
        .contains("\"code\":\"invalid_parameter\"")
        .contains("model 'whisper-large-v3' is not offered here; " + accepted);
    assertThat(openAiReply.status()).isEqualTo(422);
    assertThat(openAiReply.body())
        .contains("\"code\":\"invalid_parameter\"")
        .contains("model 'whisper-large-v3' is not offered here; " + accepted);
  }

  @Test
  void aModelLookedUpThatIsNotOfferedNamesEveryNameThatIsAccepted() throws IOException {
    Gateway gateway = offline.gateway();

    Gateway.Reply reply =
        gateway.send(
            new okhttp3.Request.Builder()
                .url(gateway.url("/v1/models/whisper-large-v3"))
                .header("Authorization", "Bearer " + Gateway.TOKEN_A)
                .build());

    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.body())
        .contains(
            "allowed: moonshine-tiny-en (also asked for as whisper-1, gpt-4o-transcribe,"
                + " gpt-4o-mini-transcribe)");
  }

  @Test
  void wordTimestampsWhichTheOfflineModelCannotGiveAreRefusedBeforeAnyWorkNotFaked()
      throws IOException {
    Gateway gateway = offline.gateway();
    byte[] note = SampleNotes.named("groceries").bytes();

    Gateway.Reply words =
        gateway.send(
            Gateway.openAiUploadRequest(
                gateway.url("/v1/audio/transcriptions"),
                Gateway.TOKEN_A,
                note,
                "model",
                "whisper-1",
                "response_format",
                "verbose_json",
                "timestamp_granularities[]",
                "word"));
    Gateway.Reply segments =
        gateway.send(
            Gateway.openAiUploadRequest(
                gateway.url("/v1/audio/transcriptions"),
                Gateway.TOKEN_A,
                note,
                "model",
                "whisper-1",
                "response_format",
                "verbose_json",
                "timestamp_granularities[]",
                "segment"));

    assertThat(words.status()).as(words.body()).isEqualTo(400);
    assertThat(words.body())
        .contains("\"code\":\"invalid_parameter\"")
        .contains("\"param\":\"timestamp_granularities[]\"")
        .contains("model moonshine-tiny-en times segments, not words");
    assertThat(segments.status()).as(segments.body()).isEqualTo(200);
    assertThat(segments.body()).contains("\"segments\"").doesNotContain("\"words\"");
  }
}
