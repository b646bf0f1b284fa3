package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.UnauthorizedException;
import com.openai.errors.UnprocessableEntityException;
import com.openai.models.audio.AudioResponseFormat;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.audio.transcriptions.TranscriptionCreateResponse;
import com.openai.models.audio.transcriptions.TranscriptionStreamEvent;
import com.openai.models.audio.translations.TranslationCreateParams;
import com.openai.models.models.Model;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official OpenAI Java SDK ({@code com.openai:openai-java}) as a real client of the gateway on
 * loopback, its base URL pointed at the gateway and a device token as its API key: every response
 * format, streaming (passed through, shared with a duplicate that joins, broken), translations,
 * models and errors.
 */
class OpenAiJavaSdkTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String STREAMING_MODEL = "gpt-4o-mini-transcribe";

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(Map.of("BOLO_OPENAI_MODELS", "whisper-1," + STREAMING_MODEL));

  private OpenAIClient sdk;

  /** Every SDK client a test made; the SDK's client is not AutoCloseable. */
  private final List<OpenAIClient> clients = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    sdk = client(Gateway.TOKEN_A);
  }

  @AfterEach
  void closeClients() {
    clients.forEach(OpenAIClient::close);
  }

  private OpenAIClient client(String token) {
    return client(fixture.gateway(), token);
  }

  private OpenAIClient client(Gateway target, String token) {
    OpenAIClient client =
        OpenAIOkHttpClient.builder()
            .baseUrl(target.url("/v1"))
            .apiKey(token)
            // A retry would hide what the gateway answered the first time.
            .maxRetries(0)
            // Generous: the offline engine shares the machine's cores with whatever else runs.
            .timeout(Duration.ofMinutes(2))
            .build();
    clients.add(client);
    return client;
  }

  private Path note(long seed) throws IOException {
    Path file = fixture.dataDir().resolve("note-" + seed + ".wav");
    Files.write(file, TestAudio.wav(700, seed));
    return file;
  }

  private static TranscriptionCreateParams.Builder params(Path file, String model) {
    return TranscriptionCreateParams.builder().file(file).model(model);
  }

  @Test
  void jsonAndVerboseJsonComeBackAsTheSdksTypes() throws Exception {
    TranscriptionCreateResponse json =
        sdk.audio().transcriptions().create(params(note(1), "whisper-1").language("en").build());
    assertThat(json.asTranscription().text()).startsWith("transcript of").endsWith("in en");

    String verbose =
        "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":0.7,\"text\":\"hi there\","
            + "\"words\":[{\"word\":\"hi\",\"start\":0.0,\"end\":0.3},"
            + "{\"word\":\"there\",\"start\":0.3,\"end\":0.7}]}";
    fixture.provider().enqueue(new MockResponse.Builder().code(200).body(verbose).build());
    TranscriptionCreateResponse detailed =
        sdk.audio()
            .transcriptions()
            .create(
                params(note(2), "whisper-1")
                    .responseFormat(AudioResponseFormat.VERBOSE_JSON)
                    .timestampGranularities(
                        List.of(TranscriptionCreateParams.TimestampGranularity.WORD))
                    .build());
    assertThat(detailed.asVerbose().text()).isEqualTo("hi there");
    assertThat(detailed.asVerbose().words().orElseThrow()).hasSize(2);
  }

  @Test
  void textSrtAndVttReachTheSdkRenderedFromOneVerboseJsonCall() throws Exception {
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(200)
                .setHeader("Content-Type", "application/json")
                .body(
                    "{\"text\":\"hello there\",\"duration\":0.7,\"segments\":"
                        + "[{\"id\":0,\"start\":0.0,\"end\":0.7,\"text\":\" hello there\"}]}")
                .build());
    Path file = note(3);
    assertThat(textOf(file, AudioResponseFormat.TEXT)).isEqualTo("hello there");
    assertThat(textOf(file, AudioResponseFormat.SRT))
        .isEqualTo("1\n00:00:00,000 --> 00:00:00,700\nhello there\n\n");
    assertThat(textOf(file, AudioResponseFormat.VTT))
        .isEqualTo("WEBVTT\n\n00:00:00.000 --> 00:00:00.700\nhello there\n\n");
    assertThat(fixture.provider().calls()).as("one call for every format").isEqualTo(1);
  }

  /** The SDK types a plain-text answer as a transcription whose text is the whole body. */
  private String textOf(Path file, AudioResponseFormat format) throws IOException {
    try (var raw =
        sdk.audio()
            .transcriptions()
            .withRawResponse()
            .create(params(file, "whisper-1").responseFormat(format).build())) {
      assertThat(raw.statusCode()).isEqualTo(200);
      return new String(raw.body().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void aStreamingModelsDeltasReachTheCallerAndAJoiningDuplicateAsTheyArrive() throws Exception {
    CountDownLatch rest = new CountDownLatch(1);
    fixture
        .provider()
        .enqueue(FakeProvider.eventStream(List.of("Hello", " there", ", world"), 1, rest, true));
    Path file = note(4);
    // The SDK opens the file when the parameters are built and reads it once: one per request.
    Supplier<TranscriptionCreateParams> streamed = () -> params(file, STREAMING_MODEL).build();

    Events first = Events.collect(sdk, streamed);
    // Held back by the provider: the first delta can only have come through as it arrived.
    Await.until(() -> first.deltas().contains("Hello"), () -> "first saw " + first.deltas());
    Events joined = Events.collect(client(Gateway.TOKEN_A), streamed);
    // The duplicate catches up with the text so far, then receives the rest with the first.
    Await.until(
        () -> joined.deltas().contains("Hello"),
        () -> "duplicate saw " + joined.deltas() + ", " + joined.done());
    rest.countDown();

    assertThat(first.done().get(10, TimeUnit.SECONDS)).isEqualTo("Hello there, world");
    assertThat(joined.done().get(10, TimeUnit.SECONDS)).isEqualTo("Hello there, world");
    assertThat(first.deltas()).containsExactly("Hello", " there", ", world");
    assertThat(joined.deltas()).containsExactly("Hello", " there", ", world");
    // The provider's usage (19 tokens in FakeProvider's done event) reaches both done events.
    assertThat(first.doneTotalTokens()).containsExactly(19L);
    assertThat(joined.doneTotalTokens()).containsExactly(19L);
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(FakeProvider.bodyText(fixture.provider().takeRequest()))
        .contains("name=\"stream\"\r\n\r\ntrue")
        .contains("name=\"model\"\r\n\r\n" + STREAMING_MODEL);

    // Stored like any other success: a streamed resend is one done event marked replayed, and a
    // plain request gets the same text (stream is no part of the work).
    Events replay = Events.collect(sdk, streamed);
    assertThat(replay.done().get(10, TimeUnit.SECONDS)).isEqualTo("Hello there, world");
    assertThat(replay.deltas()).containsExactly("Hello there, world");
    // A replay carries the usage of the call that made the transcript, as the JSON answer does.
    assertThat(replay.doneTotalTokens()).containsExactly(19L);
    var plain = sdk.audio().transcriptions().create(streamed.get()).asTranscription();
    assertThat(plain.text()).isEqualTo("Hello there, world");
    assertThat(plain.usage().orElseThrow().asTokens().totalTokens()).isEqualTo(19L);
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void aStreamingDuplicateOfAPlainRequestReceivesTheDeltasOfTheSameUpstreamCall() throws Exception {
    CountDownLatch rest = new CountDownLatch(1);
    fixture.provider().enqueue(FakeProvider.eventStream(List.of("one", " two"), 1, rest, true));
    Path file = note(12);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      // A plain request starts the work; the provider streams because the model does.
      Future<String> plain =
          threads.submit(
              () ->
                  sdk.audio()
                      .transcriptions()
                      .create(params(file, STREAMING_MODEL).build())
                      .asTranscription()
                      .text());
      Await.until(
          () -> fixture.provider().calls() == 1,
          () -> "provider calls: " + fixture.provider().calls());
      Events streamed = Events.collect(sdk, () -> params(file, STREAMING_MODEL).build());
      Await.until(
          () -> streamed.deltas().contains("one"), () -> "the duplicate saw " + streamed.deltas());
      rest.countDown();

      assertThat(plain.get(10, TimeUnit.SECONDS)).isEqualTo("one two");
      assertThat(streamed.done().get(10, TimeUnit.SECONDS)).isEqualTo("one two");
      assertThat(streamed.deltas()).containsExactly("one", " two");
    }
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  @Test
  void aReplayedStreamIsMarkedReplayed() throws Exception {
    fixture
        .provider()
        .enqueue(FakeProvider.eventStream(List.of("once"), -1, new CountDownLatch(0), true));
    byte[] audio = TestAudio.wav(700, 5);
    String first = streamRaw(audio, STREAMING_MODEL).body().string();
    try (Response again = streamRaw(audio, STREAMING_MODEL)) {
      assertThat(again.code()).isEqualTo(200);
      assertThat(again.header("Content-Type")).startsWith("text/event-stream");
      assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
      String events = again.body().string();
      assertThat(events).contains("\"type\":\"transcript.text.done\",\"text\":\"once\"");
      assertThat(events.split("transcript.text.done", -1)).hasSize(2);
    }
    assertThat(first).contains("\"delta\":\"once\"").contains("transcript.text.done");
    assertThat(fixture.provider().calls()).isEqualTo(1);
  }

  private Response streamRaw(byte[] audio, String model) throws IOException {
    okhttp3.MultipartBody form =
        new okhttp3.MultipartBody.Builder()
            .setType(okhttp3.MultipartBody.FORM)
            .addFormDataPart(
                "file", "note.wav", RequestBody.create(audio, MediaType.get("audio/wav")))
            .addFormDataPart("model", model)
            .addFormDataPart("stream", "true")
            .build();
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/audio/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(form)
            .build();
    return fixture.gateway().client().newCall(request).execute();
  }

  @Test
  void anEngineThatDoesNotStreamSendsTheWholeTextThenTheDoneEvent() throws Exception {
    Path file = note(6);
    Events events = Events.collect(sdk, () -> params(file, "whisper-1").language("en").build());
    String text = events.done().get(10, TimeUnit.SECONDS);
    assertThat(text).startsWith("transcript of").endsWith("in en");
    assertThat(events.deltas()).containsExactly(text);
    assertThat(FakeProvider.bodyText(fixture.provider().takeRequest()))
        .doesNotContain("name=\"stream\"");
  }

  @Test
  void aBrokenProviderStreamIsAnErrorEventAndNothingIsKeptOrCharged() throws Exception {
    fixture
        .provider()
        .enqueue(FakeProvider.eventStream(List.of("Hel", "lo"), -1, new CountDownLatch(0), false));
    Path file = note(7);
    Supplier<TranscriptionCreateParams> streamed = () -> params(file, STREAMING_MODEL).build();
    Events broken = Events.collect(sdk, streamed);
    assertThat(broken.done())
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableThat()
        .havingRootCause()
        .isInstanceOf(OpenAIServiceException.class)
        .withMessageContaining("stream ended before the transcript was complete");
    assertThat(broken.deltas()).containsExactly("Hel", "lo");
    try (LedgerProbe ledger = LedgerProbe.open(fixture.dataDir(), fixture.gateway())) {
      assertThat(ledger.chargedMillis("alpha")).isZero();

      fixture
          .provider()
          .enqueue(FakeProvider.eventStream(List.of("Hello"), -1, new CountDownLatch(0), true));
      Events resent = Events.collect(sdk, streamed);
      assertThat(resent.done().get(10, TimeUnit.SECONDS)).isEqualTo("Hello");
      assertThat(fixture.provider().calls()).as("the broken stream was not kept").isEqualTo(2);
      assertThat(ledger.chargedMillis("alpha")).isEqualTo(700);
    }
  }

  @Test
  void errorsKnownBeforeTheStreamStartsKeepTheirStatusAndShape() throws Exception {
    Path file = note(8);
    Supplier<TranscriptionCreateParams> streamed = () -> params(file, STREAMING_MODEL).build();
    OpenAIClient stranger = client("not-a-device-token");
    assertThatThrownBy(() -> Events.collect(stranger, streamed).done().get(10, TimeUnit.SECONDS))
        .hasRootCauseInstanceOf(UnauthorizedException.class);
    Supplier<TranscriptionCreateParams> notOffered =
        () -> params(file, "gpt-4o-transcribe").build();
    assertThatThrownBy(() -> Events.collect(sdk, notOffered).done().get(10, TimeUnit.SECONDS))
        .rootCause()
        .isInstanceOfSatisfying(
            UnprocessableEntityException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(422);
              assertThat(e.code()).contains("invalid_parameter");
              assertThat(e.param()).contains("model");
            });
    assertThat(fixture.provider().calls()).isZero();
  }

  @Test
  void aTranslationCallsTheProvidersTranslationEndpointAsSeparateWork() throws Exception {
    Path file = note(10);
    String translated =
        sdk.audio()
            .translations()
            .create(TranslationCreateParams.builder().file(file).model("whisper-1").build())
            .asTranslation()
            .text();
    assertThat(translated).startsWith("transcript of");
    RecordedRequest upstream = fixture.provider().takeRequest();
    assertThat(upstream.getUrl().encodedPath()).isEqualTo("/v1/audio/translations");
    assertThat(FakeProvider.bodyText(upstream)).doesNotContain("name=\"language\"");

    sdk.audio().transcriptions().create(params(file, "whisper-1").build());
    assertThat(fixture.provider().calls())
        .as("translating and transcribing are two pieces of work")
        .isEqualTo(2);
    sdk.audio()
        .translations()
        .create(TranslationCreateParams.builder().file(file).model("whisper-1").build());
    assertThat(fixture.provider().calls()).as("the translation is replayed").isEqualTo(2);
  }

  @Test
  void anEngineThatCannotTranslateAnswers422NamingTheOnesThatCan() throws Exception {
    try (Gateway offline =
        Gateway.withEnvironment(
            Map.of(
                "BOLO_PORT",
                "0",
                "BOLO_ENGINE",
                "offline",
                "BOLO_DATA_DIR",
                fixture.dataDir().resolve("offline").toString(),
                "BOLO_DEVICE_TOKENS",
                "alpha=" + Gateway.TOKEN_A))) {
      OpenAIClient client = client(offline, Gateway.TOKEN_A);
      String model = client.models().list().data().get(0).id();
      TranslationCreateParams params =
          TranslationCreateParams.builder().file(note(11)).model(model).build();
      assertThatThrownBy(() -> client.audio().translations().create(params))
          .isInstanceOfSatisfying(
              UnprocessableEntityException.class,
              e -> {
                assertThat(e.code()).contains("translation_unsupported");
                assertThat(e.getMessage())
                    .contains("offline engine cannot translate", "openai", "gemini");
              });
    }
  }

  @Test
  void aDefaultGatewayTakesAPhonesM4aUnderTheModelNameEveryOpenAiSdkSends() throws Exception {
    try (Gateway offline =
        Gateway.withEnvironment(
            Map.of(
                "BOLO_PORT",
                "0",
                "BOLO_DATA_DIR",
                fixture.dataDir().resolve("default").toString(),
                "BOLO_DEVICE_TOKENS",
                "alpha=" + Gateway.TOKEN_A))) {
      awaitReady(offline);
      OpenAIClient client = client(offline, Gateway.TOKEN_A);
      // "Bolo measures the length of every voice note it is sent", cut at 3.5 s, AAC in M4A.
      Path m4a = fixture.dataDir().resolve("note.m4a");
      Files.copy(Path.of("target/test-classes/audio/aac-faststart.m4a"), m4a);

      String text =
          client
              .audio()
              .transcriptions()
              .create(params(m4a, "whisper-1").build())
              .asTranscription()
              .text();

      assertThat(text).contains("length", "voice");
      // Another OpenAI name for the same model is the same work: replayed, not recognised again.
      Gateway.Reply again =
          offline.send(
              offline.nativeUpload(
                  Gateway.TOKEN_A, Files.readAllBytes(m4a), "model", "gpt-4o-mini-transcribe"));
      assertThat(again.status()).isEqualTo(200);
      assertThat(new ObjectMapper().readTree(again.body()).get("deduplicated").asBoolean())
          .isTrue();
      assertThat(client.models().list().data())
          .extracting(Model::id)
          .containsExactly(
              "moonshine-tiny-en", "whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe");
      Gateway.Reply german =
          offline.send(
              offline.nativeUpload(Gateway.TOKEN_A, Files.readAllBytes(m4a), "language", "de"));
      assertThat(german.status()).isEqualTo(422);
      assertThat(german.body()).contains("not recognised by the offline engine", "en");
    }
  }

  private static void awaitReady(Gateway gateway) throws InterruptedException {
    Await.until(
        Duration.ofMinutes(2),
        "the offline model loaded",
        () -> {
          try {
            return gateway
                    .send(new okhttp3.Request.Builder().url(gateway.url("/readyz")).build())
                    .status()
                == 200;
          } catch (IOException e) {
            return false;
          }
        });
  }

  @Test
  void theModelsADeviceMayUseAreListedInOpenAisShape() throws Exception {
    List<Model> models = sdk.models().list().data();
    assertThat(models).extracting(Model::id).containsExactly("whisper-1", STREAMING_MODEL);
    assertThat(models).allSatisfy(m -> assertThat(m.ownedBy()).isEqualTo("openai"));
    assertThat(sdk.models().retrieve(STREAMING_MODEL).id()).isEqualTo(STREAMING_MODEL);
    assertThatThrownBy(() -> sdk.models().retrieve("gpt-4o-transcribe"))
        .isInstanceOfSatisfying(
            NotFoundException.class, e -> assertThat(e.code()).contains("model_not_found"));
    OpenAIClient stranger = client("not-a-device-token");
    assertThatThrownBy(() -> stranger.models().list()).isInstanceOf(UnauthorizedException.class);
  }

  @Test
  void unknownPathsAndMethodsAreAnsweredInOpenAisJsonShapeBeforeABigBodyIsDrained()
      throws Exception {
    byte[] big = new byte[9_600_000];
    Request upload =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/audio/speech-to-nowhere"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(RequestBody.create(big, MediaType.get("application/octet-stream")))
            .build();
    Gateway.Reply missing = fixture.gateway().send(upload);
    assertThat(missing.status()).isEqualTo(404);
    JsonNode error = JSON.readTree(missing.body()).get("error");
    assertThat(error.get("code").asText()).isEqualTo("not_found");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.get("message").asText()).contains("/v1/audio/speech-to-nowhere");

    try (Response wrongMethod =
        fixture
            .gateway()
            .client()
            .newCall(
                new Request.Builder()
                    .url(fixture.gateway().url("/v1/audio/transcriptions"))
                    .build())
            .execute()) {
      assertThat(wrongMethod.code()).isEqualTo(405);
      assertThat(wrongMethod.header("Allow")).isEqualTo("POST");
      assertThat(wrongMethod.header("Content-Type")).startsWith("application/json");
      assertThat(JSON.readTree(wrongMethod.body().string()).at("/error/code").asText())
          .isEqualTo("method_not_allowed");
    }

    Gateway.Reply nativeMissing =
        fixture
            .gateway()
            .send(new Request.Builder().url(fixture.gateway().url("/v1/nothing")).build());
    assertThat(nativeMissing.status()).isEqualTo(404);
    assertThat(JSON.readTree(nativeMissing.body()).get("code").asText()).isEqualTo("not_found");
  }

  /** The events one streaming call received, collected on its own thread. */
  private record Events(
      List<String> deltas, CompletableFuture<String> done, List<Long> doneTotalTokens) {

    static Events collect(OpenAIClient client, Supplier<TranscriptionCreateParams> params) {
      Events events =
          new Events(
              new CopyOnWriteArrayList<>(),
              new CompletableFuture<>(),
              new CopyOnWriteArrayList<>());
      Thread.ofVirtual()
          .start(
              () -> {
                try (StreamResponse<TranscriptionStreamEvent> stream =
                    client.audio().transcriptions().createStreaming(params.get())) {
                  stream.stream()
                      .forEach(
                          event -> {
                            event
                                .transcriptTextDelta()
                                .ifPresent(delta -> events.deltas().add(delta.delta()));
                            event
                                .transcriptTextDone()
                                .ifPresent(
                                    done -> {
                                      done.usage()
                                          .ifPresent(
                                              usage ->
                                                  events
                                                      .doneTotalTokens()
                                                      .add(usage.totalTokens()));
                                      events.done().complete(done.text());
                                    });
                          });
                  events.done().completeExceptionally(new AssertionError("no done event"));
                } catch (RuntimeException e) {
                  events.done().completeExceptionally(e);
                }
              });
      return events;
    }
  }
}
