package dev.bolo.server.engine.deepgram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ProviderCall;
import dev.bolo.server.engine.ProviderMessage;
import dev.bolo.server.engine.ProviderStatus;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Transcript;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deepgram's pre-recorded API as its documentation gives it: {@code POST {base}/v1/listen} with the
 * raw audio, {@code Authorization: Token …}, the model and language in the query, {@code
 * smart_format} and {@code utterances} on. Deepgram times every utterance and word, so its answer
 * is a timed {@link Transcript} (an utterance a segment) and every response format is rendered from
 * it. Its errors ({@code err_code}/{@code err_msg}, or {@code category}/{@code message}) go through
 * the gateway's one status table. Thread safe.
 */
public final class DeepgramEngine implements SpeechEngine {

  private static final Logger log = LoggerFactory.getLogger(DeepgramEngine.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Deepgram's API. */
  public static final String DEFAULT_BASE_URL = "https://api.deepgram.com";

  /** Deepgram's general model when the client names none. */
  public static final String DEFAULT_MODEL = "nova-3";

  /** Deepgram takes files up to 2 GB. */
  private static final EngineLimits LIMITS = new EngineLimits(2L * 1024 * 1024 * 1024, 86_400);

  private final OkHttpClient http;
  private final HttpUrl listen;
  private final @Nullable String apiKey;

  public DeepgramEngine(String baseUrl, @Nullable String apiKey, OkHttpClient http) {
    HttpUrl base = HttpUrl.parse(baseUrl);
    if (base == null) {
      throw new IllegalArgumentException("not a URL: " + baseUrl);
    }
    this.listen = base.newBuilder().addPathSegments("v1/listen").build();
    this.apiKey = apiKey;
    this.http = Objects.requireNonNull(http, "http");
  }

  @Override
  public String name() {
    return "deepgram";
  }

  @Override
  public String defaultModel() {
    return DEFAULT_MODEL;
  }

  @Override
  public EngineLimits limits(String model) {
    return LIMITS;
  }

  @Override
  public ResponseFormat richestFormat(String model) {
    return ResponseFormat.VERBOSE_JSON;
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    Settings settings = request.settings();
    HttpUrl.Builder url =
        listen
            .newBuilder()
            .addQueryParameter("model", settings.model())
            .addQueryParameter("smart_format", "true")
            .addQueryParameter("punctuate", "true")
            .addQueryParameter("utterances", "true");
    if (settings.hasLanguage()) {
      url.addQueryParameter("language", settings.language());
    } else {
      url.addQueryParameter("detect_language", "true");
    }
    if (!settings.prompt().isEmpty()) {
      // Deepgram has no prompt; its keyterms are the nearest, for nova-3.
      log.debug("Deepgram takes no prompt; it is not sent");
    }
    Request.Builder upstream =
        new Request.Builder().url(url.build()).post(ProviderCall.audioBody(request.audio()));
    if (apiKey != null) {
      upstream.header("Authorization", "Token " + apiKey);
    }
    return ProviderCall.execute(
        http, upstream.build(), request.timeout(), listen.toString(), this::read);
  }

  private EngineResult read(Response response) throws IOException {
    String body = response.body().string();
    if (!response.isSuccessful()) {
      String message = message(body, response.code());
      log.warn("Deepgram answered {}: {}", response.code(), message);
      if (response.code() == 401 || response.code() == 403) {
        log.error("Deepgram refused Bolo's key: every note fails until it is fixed");
      }
      return ProviderStatus.failure(response.code(), message, response.header("Retry-After"));
    }
    JsonNode answer;
    try {
      answer = JSON.readTree(body);
    } catch (IOException e) {
      return new EngineResult.Failed("Deepgram answered with unparseable JSON");
    }
    JsonNode alternative =
        answer.path("results").path("channels").path(0).path("alternatives").path(0);
    JsonNode transcript = alternative.path("transcript");
    if (!transcript.isTextual()) {
      return new EngineResult.Failed("Deepgram's answer has no transcript");
    }
    String text = transcript.asText().strip();
    double duration = answer.path("metadata").path("duration").asDouble(0);
    return new EngineResult.Transcribed(
        timed(
            answer,
            alternative,
            text,
            duration > 0 && duration <= 86_400
                ? OptionalLong.of(Math.round(duration * 1000))
                : OptionalLong.empty()));
  }

  /** The timed transcript of a Deepgram answer: its utterances as segments, its words. */
  private static Transcript timed(
      JsonNode answer, JsonNode alternative, String text, OptionalLong durationMs) {
    String language =
        answer.path("results").path("channels").path(0).path("detected_language").asText("");
    List<Transcript.Segment> segments = new ArrayList<>();
    for (JsonNode utterance : answer.path("results").path("utterances")) {
      segments.add(
          new Transcript.Segment(
              millis(utterance.path("start")),
              millis(utterance.path("end")),
              utterance.path("transcript").asText("")));
    }
    List<Transcript.Word> words = new ArrayList<>();
    for (JsonNode word : alternative.path("words")) {
      words.add(
          new Transcript.Word(
              word.path("punctuated_word").asText(word.path("word").asText("")),
              millis(word.path("start")),
              millis(word.path("end"))));
    }
    return new Transcript(
        text, segments, words, language.isEmpty() ? null : language, durationMs, null);
  }

  private static long millis(JsonNode seconds) {
    return Math.round(seconds.asDouble() * 1000);
  }

  /** Deepgram's own message, sanitised: {@code err_msg} or {@code message}. */
  private static String message(String body, int status) {
    String fallback = "HTTP " + status;
    try {
      JsonNode error = JSON.readTree(body);
      String message = error.path("err_msg").asText(error.path("message").asText(""));
      return ProviderMessage.sanitised(message, fallback);
    } catch (IOException e) {
      return fallback;
    }
  }
}
