package dev.bolo.server.engine.gemini;

import static dev.bolo.server.engine.gemini.GeminiFixtures.API_KEY;
import static dev.bolo.server.engine.gemini.GeminiFixtures.body;
import static dev.bolo.server.engine.gemini.GeminiFixtures.bodyJson;
import static dev.bolo.server.engine.gemini.GeminiFixtures.candidate;
import static dev.bolo.server.engine.gemini.GeminiFixtures.engine;
import static dev.bolo.server.engine.gemini.GeminiFixtures.error;
import static dev.bolo.server.engine.gemini.GeminiFixtures.json;
import static dev.bolo.server.engine.gemini.GeminiFixtures.request;
import static dev.bolo.server.engine.gemini.GeminiFixtures.take;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ProviderSpans;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.testing.BytesAudio;
import dev.bolo.server.testing.KeptSpans;
import dev.bolo.testkit.Await;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/** Notes above the inline limit: Google's resumable upload, then a reference to the file. */
class GeminiFilesApiTest {

  /** Small enough that a 3 000-byte note is "large": Base64 alone makes it 4 000 bytes. */
  private static final long INLINE_LIMIT = 2_000;

  @StartStop final MockWebServer server = new MockWebServer();

  private final List<Duration> sleeps = new ArrayList<>();

  private GenerateContentEngine largeNoteEngine() {
    return engine(GeminiFixtures.config(server).withInlineLimitBytes(INLINE_LIMIT), sleeps);
  }

  private MockResponse uploadStarted() {
    return json(200, "{}")
        .newBuilder()
        .addHeader("X-Goog-Upload-Status", "active")
        .addHeader(
            "X-Goog-Upload-URL",
            server.url("/upload/v1beta/files?upload_id=ABC-123&upload_protocol=resumable"))
        .build();
  }

  private String fileJson(String state) {
    return """
        {"name": "files/abc-123", "displayName": "note", "mimeType": "audio/wav",
         "sizeBytes": "3000", "createTime": "2026-11-30T10:00:00.000000Z",
         "expirationTime": "2026-12-02T10:00:00.000000Z", "sha256Hash": "NjQ=",
         "uri": "%s", "state": "%s", "source": "UPLOADED"}
        """
        .formatted(server.url("/v1beta/files/abc-123"), state);
  }

  /** The answer to a files.get: the File itself. */
  private MockResponse file(String state) {
    return json(200, fileJson(state));
  }

  /** The answer to the finalizing upload: the File wrapped in {@code {"file": ...}}. */
  private MockResponse uploaded(String state) {
    return json(200, "{\"file\": " + fileJson(state) + "}")
        .newBuilder()
        .addHeader("X-Goog-Upload-Status", "final")
        .build();
  }

  @Test
  void aLargeNoteIsUploadedResumablyReferencedAndThenDeleted() throws Exception {
    BytesAudio audio = BytesAudio.wav(3_000, 9);
    server.enqueue(uploadStarted());
    server.enqueue(uploaded("ACTIVE"));
    server.enqueue(candidate("a long note", "STOP"));
    server.enqueue(json(200, "{}"));

    EngineResult result = largeNoteEngine().transcribe(request(audio));

    assertThat(result).isEqualTo(new EngineResult.Transcribed(Transcript.plain("a long note")));

    RecordedRequest start = take(server);
    assertThat(start.getMethod()).isEqualTo("POST");
    assertThat(start.getUrl().encodedPath()).isEqualTo("/upload/v1beta/files");
    assertThat(start.getHeaders().get("x-goog-api-key")).isEqualTo(API_KEY);
    assertThat(start.getHeaders().get("X-Goog-Upload-Protocol")).isEqualTo("resumable");
    assertThat(start.getHeaders().get("X-Goog-Upload-Command")).isEqualTo("start");
    assertThat(start.getHeaders().get("X-Goog-Upload-Header-Content-Length")).isEqualTo("3000");
    assertThat(start.getHeaders().get("X-Goog-Upload-Header-Content-Type")).isEqualTo("audio/wav");
    assertThat(bodyJson(start).at("/file/display_name").asText())
        .isEqualTo("bolo-" + audio.sha256().substring(0, 16));

    RecordedRequest upload = take(server);
    assertThat(upload.getMethod()).isEqualTo("POST");
    assertThat(upload.getUrl().queryParameter("upload_id")).isEqualTo("ABC-123");
    assertThat(upload.getHeaders().get("X-Goog-Upload-Command")).isEqualTo("upload, finalize");
    assertThat(upload.getHeaders().get("X-Goog-Upload-Offset")).isEqualTo("0");
    assertThat(upload.getHeaders().get("Content-Length")).isEqualTo("3000");
    assertThat(upload.getHeaders().get("x-goog-api-key")).isEqualTo(API_KEY);
    assertThat(body(upload).toByteArray()).isEqualTo(audio.bytes());

    RecordedRequest generate = take(server);
    assertThat(generate.getUrl().encodedPath())
        .isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
    JsonNode audioPart = bodyJson(generate).at("/contents/0/parts/0");
    assertThat(audioPart.has("inline_data")).isFalse();
    assertThat(audioPart.at("/file_data/mime_type").asText()).isEqualTo("audio/wav");
    assertThat(audioPart.at("/file_data/file_uri").asText())
        .isEqualTo(server.url("/v1beta/files/abc-123").toString());

    RecordedRequest delete = take(server);
    assertThat(delete.getMethod()).isEqualTo("DELETE");
    assertThat(delete.getUrl().encodedPath()).isEqualTo("/v1beta/files/abc-123");
    assertThat(delete.getHeaders().get("x-goog-api-key")).isEqualTo(API_KEY);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void aTracedNotesFileDeletionSentFromOkHttpsThreadsIsAChildOfItsAttempt() throws Exception {
    KeptSpans kept = new KeptSpans();
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(kept)).build()) {
      Tracer tracer = provider.get("test");
      OkHttpClient traced =
          GeminiFixtures.client()
              .newBuilder()
              .addInterceptor(new ProviderSpans(tracer, W3CTraceContextPropagator.getInstance()))
              .build();
      GenerateContentEngine engine =
          engine(
              GeminiConfig.of(API_KEY, traced)
                  .withBaseUrl(server.url("/").toString())
                  .withInlineLimitBytes(INLINE_LIMIT),
              sleeps);
      server.enqueue(uploadStarted());
      server.enqueue(uploaded("ACTIVE"));
      server.enqueue(candidate("a long note", "STOP"));
      server.enqueue(json(200, "{}"));

      Span attempt = tracer.spanBuilder("engine attempt").startSpan();
      try (Scope scope = attempt.makeCurrent()) {
        assertThat(engine.transcribe(request(BytesAudio.wav(3_000, 9))))
            .isInstanceOf(EngineResult.Transcribed.class);
      } finally {
        attempt.end();
      }
      for (int call = 0; call < 3; call++) {
        take(server);
      }
      RecordedRequest delete = take(server);

      assertThat(delete.getMethod()).isEqualTo("DELETE");
      String traceId = attempt.getSpanContext().getTraceId();
      assertThat(delete.getHeaders().get("traceparent")).startsWith("00-" + traceId + "-");
      Await.until(
          () -> kept.spans().stream().anyMatch(s -> s.getName().equals("DELETE")),
          () -> "the deletion's span among " + kept.spans());
      SpanData deletion =
          kept.spans().stream().filter(s -> s.getName().equals("DELETE")).findFirst().orElseThrow();
      assertThat(deletion.getTraceId()).isEqualTo(traceId);
      assertThat(deletion.getParentSpanId()).isEqualTo(attempt.getSpanContext().getSpanId());
    }
  }

  @Test
  void aNoteAtTheLimitStaysInline() throws Exception {
    // 200 bytes make 268 of Base64; with the instruction and the envelope still under 2 000.
    server.enqueue(candidate("short", "STOP"));

    largeNoteEngine().transcribe(request(BytesAudio.wav(200, 3)));

    assertThat(take(server).getUrl().encodedPath()).endsWith(":generateContent");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aFileStillProcessingIsPolledUntilActive() throws Exception {
    server.enqueue(uploadStarted());
    server.enqueue(uploaded("PROCESSING"));
    server.enqueue(file("PROCESSING"));
    server.enqueue(file("ACTIVE"));
    server.enqueue(candidate("done", "STOP"));
    server.enqueue(json(200, "{}"));

    EngineResult result = largeNoteEngine().transcribe(request(BytesAudio.wav(3_000, 9)));

    assertThat(result).isEqualTo(new EngineResult.Transcribed(Transcript.plain("done")));
    take(server);
    take(server);
    RecordedRequest poll = take(server);
    assertThat(poll.getMethod()).isEqualTo("GET");
    assertThat(poll.getUrl().encodedPath()).isEqualTo("/v1beta/files/abc-123");
    assertThat(poll.getHeaders().get("x-goog-api-key")).isEqualTo(API_KEY);
    assertThat(take(server).getMethod()).isEqualTo("GET");
    assertThat(take(server).getUrl().encodedPath()).endsWith(":generateContent");
    assertThat(take(server).getMethod()).isEqualTo("DELETE");
    assertThat(sleeps).containsExactly(GeminiFiles.POLL_INTERVAL, GeminiFiles.POLL_INTERVAL);
  }

  @Test
  void aFileThatFailedProcessingIsAFailureAndIsDeleted() throws Exception {
    server.enqueue(uploadStarted());
    server.enqueue(uploaded("FAILED"));
    server.enqueue(json(200, "{}"));

    EngineResult result = largeNoteEngine().transcribe(request(BytesAudio.wav(3_000, 9)));

    assertThat(result)
        .isEqualTo(new EngineResult.Failed("Gemini could not process the uploaded note: FAILED"));
    take(server);
    take(server);
    assertThat(take(server).getMethod()).isEqualTo("DELETE");
  }

  @Test
  void aRateLimitedUploadIsUnavailableAndNothingElseIsSent() {
    server.enqueue(
        error(
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded.",
            "{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"5s\"}"));

    EngineResult result = largeNoteEngine().transcribe(request(BytesAudio.wav(3_000, 9)));

    assertThat(result).isInstanceOf(EngineResult.Unavailable.class);
    assertThat(((EngineResult.Unavailable) result).retryAfter()).isEqualTo(Duration.ofSeconds(5));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theKeyIsNotSentToAnUploadUrlOnAnotherOrigin() throws Exception {
    try (MockWebServer elsewhere = new MockWebServer()) {
      elsewhere.start();
      server.enqueue(
          json(200, "{}")
              .newBuilder()
              .addHeader("X-Goog-Upload-URL", elsewhere.url("/upload?upload_id=XYZ"))
              .build());
      elsewhere.enqueue(uploaded("ACTIVE"));
      server.enqueue(candidate("ok", "STOP"));
      server.enqueue(json(200, "{}"));

      EngineResult result = largeNoteEngine().transcribe(request(BytesAudio.wav(3_000, 9)));

      assertThat(result).isEqualTo(new EngineResult.Transcribed(Transcript.plain("ok")));
      RecordedRequest upload = take(elsewhere);
      assertThat(upload.getUrl().queryParameter("upload_id")).isEqualTo("XYZ");
      assertThat(upload.getHeaders().get("x-goog-api-key")).isNull();
      take(server);
      take(server);
      assertThat(take(server).getMethod()).isEqualTo("DELETE");
    }
  }

  @Test
  void anUploadStartWithoutAnUploadUrlIsAFailure() {
    server.enqueue(json(200, "{}"));

    assertThat(largeNoteEngine().transcribe(request(BytesAudio.wav(3_000, 9))))
        .isEqualTo(new EngineResult.Failed("Gemini's upload start answered no X-Goog-Upload-URL"));
  }
}
