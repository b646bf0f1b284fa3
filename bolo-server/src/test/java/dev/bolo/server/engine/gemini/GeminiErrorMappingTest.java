package dev.bolo.server.engine.gemini;

import static dev.bolo.server.engine.gemini.GeminiFixtures.API_KEY;
import static dev.bolo.server.engine.gemini.GeminiFixtures.capture;
import static dev.bolo.server.engine.gemini.GeminiFixtures.engine;
import static dev.bolo.server.engine.gemini.GeminiFixtures.error;
import static dev.bolo.server.engine.gemini.GeminiFixtures.json;
import static dev.bolo.server.engine.gemini.GeminiFixtures.request;
import static dev.bolo.server.engine.gemini.GeminiFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.testing.BytesAudio;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Gemini's documented error answers and the outcome each becomes. */
class GeminiErrorMappingTest {

  private static final String RETRY_INFO_17S =
      """
      {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
       "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                       "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                       "quotaValue": "10"}]},
      {"@type": "type.googleapis.com/google.rpc.Help",
       "links": [{"description": "Learn more about Gemini API quotas",
                  "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]},
      {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}
      """;

  private static final String API_KEY_INVALID =
      """
      {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
       "domain": "googleapis.com",
       "metadata": {"service": "generativelanguage.googleapis.com"}},
      {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US",
       "message": "API key not valid. Please pass a valid API key."}
      """;

  @StartStop final MockWebServer server = new MockWebServer();

  private EngineResult transcribe() {
    return engine(server).transcribe(request(BytesAudio.wav(100, 1)));
  }

  @Test
  void invalidArgumentIsRejectedWithGooglesMessage() {
    server.enqueue(error(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", ""));

    assertThat(transcribe())
        .isEqualTo(
            new EngineResult.Rejected(
                "Gemini rejected the note (HTTP 400 INVALID_ARGUMENT: Request contains an invalid"
                    + " argument.)"));
  }

  @Test
  void anInvalidKeyIsAFailureAndALoudErrorThatNeverShowsTheKey() {
    server.enqueue(
        error(
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            API_KEY_INVALID));

    EngineResult result;
    try (GeminiFixtures.Captured errors = capture(GeminiErrors.class);
        GeminiFixtures.Captured engine = capture(GenerateContentEngine.class)) {
      result = transcribe();

      assertThat(errors.events())
          .anySatisfy(
              event -> {
                assertThat(event.getLevel()).isEqualTo(Level.ERROR);
                assertThat(event.getFormattedMessage())
                    .contains("refused the gateway's API key")
                    .contains("BOLO_GEMINI_API_KEY");
              });
      assertThat(errors.events()).noneMatch(GeminiErrorMappingTest::mentionsKey);
      assertThat(engine.events()).noneMatch(GeminiErrorMappingTest::mentionsKey);
    }
    assertThat(result).isInstanceOf(EngineResult.Failed.class);
    assertThat(((EngineResult.Failed) result).message())
        .contains("API key")
        .doesNotContain(API_KEY);
  }

  @ParameterizedTest
  @CsvSource({
    "401, UNAUTHENTICATED, Request had invalid authentication credentials.",
    "403, PERMISSION_DENIED, Method doesn't allow unregistered callers."
  })
  void unauthorisedOrForbiddenIsAFailureWithAnErrorLog(int code, String status, String message) {
    server.enqueue(error(code, status, message, ""));

    EngineResult result;
    try (GeminiFixtures.Captured errors = capture(GeminiErrors.class)) {
      result = transcribe();
      assertThat(errors.events())
          .anySatisfy(event -> assertThat(event.getLevel()).isEqualTo(Level.ERROR));
    }
    assertThat(result).isInstanceOf(EngineResult.Failed.class);
    assertThat(((EngineResult.Failed) result).message()).contains(status);
  }

  @Test
  void resourceExhaustedIsUnavailableForTheRetryInfoDelay() {
    server.enqueue(
        error(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing details.",
            RETRY_INFO_17S));

    EngineResult result = transcribe();

    assertThat(result).isInstanceOf(EngineResult.Unavailable.class);
    assertThat(((EngineResult.Unavailable) result).retryAfter()).isEqualTo(Duration.ofSeconds(17));
    assertThat(((EngineResult.Unavailable) result).message()).contains("RESOURCE_EXHAUSTED");
  }

  @Test
  void aFractionalRetryDelayIsKeptToTheNanosecond() {
    server.enqueue(
        error(
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded.",
            """
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "45.837906927s"}
            """));

    assertThat(((EngineResult.Unavailable) transcribe()).retryAfter())
        .isEqualTo(Duration.ofSeconds(45, 837_906_927));
  }

  @Test
  void aRetryAfterHeaderWinsOverTheBody() {
    server.enqueue(
        error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", RETRY_INFO_17S)
            .newBuilder()
            .addHeader("Retry-After", "30")
            .build());

    assertThat(((EngineResult.Unavailable) transcribe()).retryAfter())
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void internalIsAFailure() {
    server.enqueue(
        error(500, "INTERNAL", "An internal error has occurred. Please retry or report.", ""));

    assertThat(transcribe()).isInstanceOf(EngineResult.Failed.class);
  }

  @Test
  void unavailableIsUnavailableWithoutADelayWhenNoneIsGiven() {
    server.enqueue(
        error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", ""));

    EngineResult result = transcribe();

    assertThat(result)
        .isEqualTo(
            new EngineResult.Unavailable(
                "Gemini is overloaded or down (HTTP 503 UNAVAILABLE: The model is overloaded."
                    + " Please try again later.)",
                null));
  }

  @Test
  void deadlineExceededIsATimeout() {
    server.enqueue(
        error(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", ""));

    assertThat(transcribe()).isInstanceOf(EngineResult.TimedOut.class);
  }

  @Test
  void failedPreconditionIsTheGatewaysProblemNotTheNotes() {
    server.enqueue(
        error(
            400,
            "FAILED_PRECONDITION",
            "User location is not supported for the API use without a billing account linked.",
            ""));

    assertThat(transcribe()).isInstanceOf(EngineResult.Failed.class);
  }

  @Test
  void anUnknownModelTheClientNamedIsRejected() {
    server.enqueue(
        error(404, "NOT_FOUND", "models/gemini-0-nope is not found for API version v1beta.", ""));

    EngineResult result =
        engine(server)
            .transcribe(
                request(
                    BytesAudio.wav(100, 1),
                    settings("gemini-0-nope", null, null, null),
                    Duration.ofSeconds(10)));

    assertThat(result).isInstanceOf(EngineResult.Rejected.class);
    assertThat(((EngineResult.Rejected) result).message()).contains("gemini-0-nope");
  }

  @Test
  void anUnknownDefaultModelIsTheGatewaysFailure() {
    server.enqueue(error(404, "NOT_FOUND", "models/gemini-2.5-flash is not found.", ""));

    assertThat(transcribe()).isInstanceOf(EngineResult.Failed.class);
  }

  @Test
  void aProxysHtmlErrorPageIsAFailureNamingTheStatus() {
    server.enqueue(
        new MockResponse.Builder()
            .code(502)
            .addHeader("Content-Type", "text/html")
            .body("<html><body>Bad Gateway</body></html>")
            .build());

    assertThat(transcribe())
        .isEqualTo(new EngineResult.Failed("Gemini failed in the generateContent step (HTTP 502)"));
  }

  @Test
  void aBlockedPromptIsAFailureNamingTheReason() {
    server.enqueue(
        json(
            200,
            """
            {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
             "usageMetadata": {"promptTokenCount": 120, "totalTokenCount": 120},
             "modelVersion": "gemini-2.5-flash"}
            """));

    assertThat(transcribe())
        .isEqualTo(new EngineResult.Failed("Gemini blocked the request: PROHIBITED_CONTENT"));
  }

  @Test
  void noCandidatesIsAFailure() {
    server.enqueue(json(200, "{\"candidates\": [], \"modelVersion\": \"gemini-2.5-flash\"}"));

    assertThat(transcribe())
        .isEqualTo(new EngineResult.Failed("Gemini answered with no candidates"));
  }

  @ParameterizedTest
  @CsvSource({"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "OTHER"})
  void aCandidateStoppedWithoutTextIsAFailureNamingTheReason(String finishReason) {
    server.enqueue(
        json(
            200,
            """
            {"candidates": [{"finishReason": "%s", "index": 0,
              "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH"}]}]}
            """
                .formatted(finishReason)));

    assertThat(transcribe())
        .isEqualTo(
            new EngineResult.Failed(
                "Gemini gave no transcript (finishReason " + finishReason + ")"));
  }

  @Test
  void aTranscriptCutShortIsAFailureNotAReplayableResult() {
    server.enqueue(GeminiFixtures.candidate("and then we went to", "MAX_TOKENS"));

    assertThat(transcribe())
        .isEqualTo(
            new EngineResult.Failed("Gemini cut the transcript short (finishReason MAX_TOKENS)"));
  }

  @Test
  void anUnparseableAnswerIsAFailure() {
    server.enqueue(json(200, "{\"candidates\": [{\"content\": "));

    assertThat(transcribe())
        .isEqualTo(new EngineResult.Failed("Gemini answered with a body that is not JSON"));
  }

  private static boolean mentionsKey(ILoggingEvent event) {
    return event.getFormattedMessage().contains(API_KEY);
  }
}
