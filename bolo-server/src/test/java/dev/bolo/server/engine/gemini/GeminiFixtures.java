package dev.bolo.server.engine.gemini;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.upload.AudioContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import okio.ByteString;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/** Response bodies in the shapes Google documents, and the engine wired to a MockWebServer. */
final class GeminiFixtures {

  static final String API_KEY = "AIzaSy-test-key-0123456789";
  static final ObjectMapper JSON = new ObjectMapper();

  private GeminiFixtures() {}

  /** No client timeouts at all: only the engine's per-call timeout can end a stalled call. */
  static OkHttpClient client() {
    return new OkHttpClient.Builder()
        .connectTimeout(Duration.ZERO)
        .readTimeout(Duration.ZERO)
        .writeTimeout(Duration.ZERO)
        .build();
  }

  static GeminiConfig config(MockWebServer server) {
    return GeminiConfig.of(API_KEY, client()).withBaseUrl(server.url("/").toString());
  }

  /** A ticker that never moves and a sleeper that only records: time is the test's to give. */
  static GenerateContentEngine engine(GeminiConfig config, List<Duration> sleeps) {
    return new GenerateContentEngine(config, () -> 0L, sleeps::add);
  }

  static GenerateContentEngine engine(MockWebServer server) {
    return engine(config(server), new ArrayList<>());
  }

  static Settings settings(
      @Nullable String model,
      @Nullable String language,
      @Nullable String prompt,
      @Nullable String responseFormat) {
    return Settings.canonical(
        "gemini",
        GeminiConfig.DEFAULT_MODEL,
        model,
        language,
        prompt,
        "0.3",
        responseFormat,
        List.of());
  }

  static EngineRequest request(AudioContent audio, Settings settings, Duration timeout) {
    return new EngineRequest(audio, settings, timeout, "req-42");
  }

  static EngineRequest request(AudioContent audio) {
    return request(audio, settings(null, null, null, null), Duration.ofSeconds(10));
  }

  static MockResponse json(int code, String body) {
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", "application/json; charset=UTF-8")
        .body(body)
        .build();
  }

  /** A generateContent answer with one candidate, as in Google's API reference. */
  static MockResponse candidate(String text, String finishReason) {
    return json(
        200,
        """
        {"candidates": [{"content": {"parts": [{"text": %s}], "role": "model"},
                         "finishReason": "%s", "index": 0}],
         "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 8,
                           "totalTokenCount": 128},
         "modelVersion": "gemini-2.5-flash", "responseId": "abc"}
        """
            .formatted(quoted(text), finishReason));
  }

  /** Google's error envelope ({@code google.rpc.Status} as JSON) with optional details. */
  static MockResponse error(int code, String status, String message, String details) {
    return json(
        code,
        """
        {"error": {"code": %d, "message": %s, "status": "%s", "details": [%s]}}
        """
            .formatted(code, quoted(message), status, details));
  }

  static String quoted(String text) {
    try {
      return JSON.writeValueAsString(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode bodyJson(RecordedRequest request) throws IOException {
    return JSON.readTree(body(request).utf8());
  }

  static ByteString body(RecordedRequest request) {
    ByteString body = request.getBody();
    if (body == null) {
      throw new AssertionError("request has no body: " + request);
    }
    return body;
  }

  static RecordedRequest take(MockWebServer server) throws InterruptedException {
    RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
    if (request == null) {
      throw new AssertionError("no request reached the server within 5 s");
    }
    return request;
  }

  /** Captures what a class logs while a test runs; detach with {@link Captured#close()}. */
  static Captured capture(Class<?> owner) {
    Logger logger = (Logger) LoggerFactory.getLogger(owner);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    return new Captured(logger, appender);
  }

  record Captured(Logger logger, ListAppender<ILoggingEvent> appender) implements AutoCloseable {
    List<ILoggingEvent> events() {
      return List.copyOf(appender.list);
    }

    @Override
    public void close() {
      logger.detachAppender(appender);
    }
  }
}
