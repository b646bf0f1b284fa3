package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.testing.AnsweringEngine;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine that throws (an OutOfMemoryError, a bug) is the gateway's fault: 500 {@code
 * internal_error} with a generic message on both endpoints, the throwable in the log once, nothing
 * charged or replayed, and the next request served as usual.
 */
class EngineFaultTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  private final OkHttpClient client = new OkHttpClient();
  private FakeProvider provider;
  private App app;

  /** How many of the next engine calls throw before the real engine is called again. */
  private final AtomicInteger failuresLeft = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    provider = new FakeProvider();
    app =
        App.builder(ServerConfig.fromMap(Gateway.openAiEnvironment(provider, dataDir)))
            // The real engine, except that the next calls throw while failuresLeft says so.
            .engineView(
                real ->
                    new AnsweringEngine(
                        real,
                        request -> {
                          if (failuresLeft.getAndDecrement() > 0) {
                            throw new OutOfMemoryError("Java heap space");
                          }
                          return real.transcribe(request);
                        }))
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    app.close();
    provider.close();
    client.dispatcher().executorService().shutdown();
  }

  @Test
  void anOutOfMemoryErrorIsA500InternalErrorWithNoExceptionTextAndTheResendIsTranscribed()
      throws Exception {
    byte[] note = TestAudio.wav(1_500, 21);
    String log;
    Gateway.Reply failed;
    try (LogCapture capture = LogCapture.start()) {
      failuresLeft.set(1);
      failed = send(nativeUpload(note));
      log = capture.text();
    }

    assertThat(failed.status()).as(failed.body()).isEqualTo(500);
    JsonNode error = JSON.readTree(failed.body());
    assertThat(error.path("code").asText()).isEqualTo("internal_error");
    assertThat(error.path("error").asText())
        .isEqualTo("internal error; the note was not transcribed");
    assertThat(failed.body()).doesNotContain("OutOfMemory", "heap", "java.", "Error:", "dev.bolo");
    assertThat(failed.retryAfter()).isNull();
    // Logged once, with its stack trace.
    assertThat(log.split("java.lang.OutOfMemoryError: Java heap space", -1)).hasSize(2);
    assertThat(log).contains("at dev.bolo.server.http.EngineFaultTest.lambda$");
    try (LedgerProbe ledger = LedgerProbe.open(dataDir)) {
      assertThat(ledger.chargedMillis("alpha")).isZero();
    }

    // The failure was neither kept nor charged: the same note is transcribed afresh.
    Gateway.Reply resent = send(nativeUpload(note));
    assertThat(resent.status()).as(resent.body()).isEqualTo(200);
    assertThat(JSON.readTree(resent.body()).path("deduplicated").asBoolean()).isFalse();
    assertThat(provider.calls()).isEqualTo(1);
  }

  @Test
  void theOpenAiEndpointAnswersTheSameFaultInItsOwnShape() throws Exception {
    failuresLeft.set(1);

    Gateway.Reply failed = send(openAiUpload(TestAudio.wav(1_200, 22)));

    assertThat(failed.status()).as(failed.body()).isEqualTo(500);
    JsonNode error = JSON.readTree(failed.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("internal_error");
    assertThat(error.path("type").asText()).isEqualTo("server_error");
    assertThat(error.path("message").asText())
        .isEqualTo("internal error; the note was not transcribed");
    assertThat(failed.body()).doesNotContain("OutOfMemory", "heap", "java.", "dev.bolo");
    assertThat(send(openAiUpload(TestAudio.wav(1_200, 23))).status()).isEqualTo(200);
  }

  private Request nativeUpload(byte[] note) {
    return Gateway.nativeUploadRequest(url("/v1/transcriptions"), Gateway.TOKEN_A, note);
  }

  private Request openAiUpload(byte[] note) {
    MultipartBody body =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                "file", "note.wav", RequestBody.create(note, MediaType.get("audio/wav")))
            .addFormDataPart("model", "whisper-1")
            .build();
    return new Request.Builder()
        .url(url("/v1/audio/transcriptions"))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .post(body)
        .build();
  }

  private String url(String path) {
    return "http://127.0.0.1:" + app.port() + path;
  }

  private Gateway.Reply send(Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return Gateway.replyOf(response);
    }
  }
}
