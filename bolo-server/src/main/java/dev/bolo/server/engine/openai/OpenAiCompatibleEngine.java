package dev.bolo.server.engine.openai;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ProviderCall;
import dev.bolo.server.engine.ProviderMessage;
import dev.bolo.server.engine.ProviderStatus;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.engine.VerboseJson;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import okhttp3.HttpUrl;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls {@code POST {baseUrl}/audio/transcriptions} as OpenAI's API defines it, streaming the note
 * from memory or its spool file, and maps every answer to an {@link EngineResult}. Thread safe;
 * shares the given OkHttpClient's connection pool.
 */
public final class OpenAiCompatibleEngine implements SpeechEngine {

  private static final Logger log = LoggerFactory.getLogger(OpenAiCompatibleEngine.class);

  /**
   * Jackson's default cap on one string (20 million characters) would turn a long, valid verbose
   * transcript into "unparseable JSON"; the answer's size is bounded by {@link AnswerLimit}
   * instead, with a message that says so.
   */
  private static final ObjectMapper JSON =
      new ObjectMapper(
          com.fasterxml.jackson.core.JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
              // Buffers shared by all threads: every call runs on a virtual thread of its own,
              // where Jackson's default per-thread buffers would be allocated afresh each time.
              .recyclerPool(
                  com.fasterxml.jackson.core.util.JsonRecyclerPools.sharedConcurrentDequePool())
              .build());

  /** How much of a provider's raw error body goes to the log. */
  private static final int MAX_LOGGED_BODY = 2000;

  private final OpenAiConfig config;
  private final OkHttpClient http;
  private final HttpUrl base;
  private final HttpUrl endpoint;
  private final HttpUrl translations;

  private OpenAiCompatibleEngine(OpenAiConfig config, OkHttpClient http) {
    this.config = config;
    this.http = http;
    HttpUrl parsed = HttpUrl.parse(config.baseUrl());
    if (parsed == null) {
      throw new IllegalArgumentException("not a URL: " + config.baseUrl());
    }
    this.base = parsed;
    this.endpoint = base.newBuilder().addPathSegments("audio/transcriptions").build();
    this.translations = base.newBuilder().addPathSegments("audio/translations").build();
  }

  /**
   * An engine for the service in {@code config}.
   *
   * @param http shared client; its own timeouts are replaced per call by the request's timeout. Its
   *     {@code retryOnConnectionFailure} should stay on (OkHttp's default): providers close idle
   *     keep-alive connections, and without it the next note on such a pooled connection fails with
   *     502 instead of being sent on a fresh one.
   */
  public static OpenAiCompatibleEngine create(OpenAiConfig config, OkHttpClient http) {
    return new OpenAiCompatibleEngine(
        Objects.requireNonNull(config, "config"), Objects.requireNonNull(http, "http"));
  }

  @Override
  public String name() {
    return config.azureApiVersion() == null ? "openai" : "azure";
  }

  @Override
  public String defaultModel() {
    return config.defaultModel();
  }

  @Override
  public EngineLimits limits(String model) {
    return OpenAiLimits.forModel(model).overriddenBy(config.limits());
  }

  @Override
  public ResponseFormat richestFormat(String model) {
    return OpenAiLimits.richestFormat(model);
  }

  /** OpenAI's {@code /audio/translations}, which whisper-1 and compatible servers answer. */
  @Override
  public boolean canTranslate() {
    return true;
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    return ProviderCall.execute(
        http,
        buildRequest(request),
        request.timeout(),
        endpoint.toString(),
        response -> {
          if (response.isSuccessful() && isEventStream(response)) {
            return TranscriptEventStream.read(response.body().source(), request.deltas());
          }
          String body = response.body().string();
          EngineResult result =
              interpret(response.code(), response.header("Retry-After"), body, request.settings());
          if (response.isSuccessful() && result instanceof EngineResult.Failed) {
            // A success that is not the answer asked for may have left part of itself on the
            // connection (a Content-Length that counts characters, not bytes); the pool would hand
            // those bytes to the next note as its answer, since OkHttp counts unread bytes as a
            // live connection.
            forgetIdleConnections();
          }
          return result;
        });
  }

  /** Closes the provider connections waiting for reuse, this call's among them. */
  private void forgetIdleConnections() {
    http.connectionPool().evictAll();
  }

  private Request buildRequest(EngineRequest request) {
    Settings settings = request.settings();
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                "file",
                "audio." + request.audio().container().extension(),
                ProviderCall.audioBody(request.audio()))
            .addFormDataPart("model", settings.model())
            .addFormDataPart("response_format", settings.responseFormat().wireName());
    boolean translate = settings.task() == Task.TRANSLATE;
    // A translation's language is always English: the endpoint takes no language.
    String language = settings.hasLanguage() ? settings.language() : config.defaultLanguage();
    if (!translate && !language.isEmpty()) {
      form.addFormDataPart("language", language);
    }
    if (streamsUpstream(settings)) {
      form.addFormDataPart("stream", "true");
    }
    if (!settings.prompt().isEmpty()) {
      form.addFormDataPart("prompt", settings.prompt());
    }
    if (settings.hasTemperature()) {
      form.addFormDataPart("temperature", settings.temperature());
    }
    for (String granularity : settings.timestampGranularities()) {
      form.addFormDataPart("timestamp_granularities[]", granularity);
    }
    String azureVersion = config.azureApiVersion();
    Request.Builder builder =
        new Request.Builder()
            .url(
                azureVersion == null
                    ? (translate ? translations : endpoint)
                    : azureUrl(settings.model(), translate, azureVersion))
            .post(form.build());
    if (config.apiKey() != null) {
      if (azureVersion == null) {
        builder.header("Authorization", "Bearer " + config.apiKey());
      } else {
        builder.header("api-key", config.apiKey());
      }
    }
    return builder.build();
  }

  /** Azure OpenAI's URL of {@code deployment}'s transcriptions or translations. */
  private HttpUrl azureUrl(String deployment, boolean translate, String apiVersion) {
    return base.newBuilder()
        .addPathSegment("openai")
        .addPathSegment("deployments")
        .addPathSegment(deployment)
        .addPathSegments(translate ? "audio/translations" : "audio/transcriptions")
        .addQueryParameter("api-version", apiVersion)
        .build();
  }

  /**
   * Whether to ask the provider for a stream of the text as it is made: OpenAI streams a
   * transcription in {@code json} or {@code text} from its newer models and ignores the request for
   * whisper models, so those are not asked. The answer is read by its content type either way, so a
   * compatible server that ignores the request still works.
   */
  static boolean streamsUpstream(Settings settings) {
    boolean plainText =
        settings.responseFormat() == ResponseFormat.JSON
            || settings.responseFormat() == ResponseFormat.TEXT;
    return settings.task() == Task.TRANSCRIBE
        && plainText
        && !settings.model().toLowerCase(java.util.Locale.ROOT).startsWith("whisper");
  }

  private static boolean isEventStream(Response response) {
    String type = response.header("Content-Type");
    return type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("text/event-stream");
  }

  /** Maps the provider's answer; see the table in the README. */
  EngineResult interpret(int status, @Nullable String retryAfter, String body, Settings settings) {
    if (status >= 200 && status < 300) {
      return parseSuccess(body, settings.responseFormat());
    }
    String message = providerMessage(body, status);
    log.warn(
        "the transcription provider answered {}: {}",
        status,
        body.length() <= MAX_LOGGED_BODY ? body : body.substring(0, MAX_LOGGED_BODY) + "…");
    if (status == 404) {
      log.error(
          "the provider answered 404 for {} (model '{}'): check BOLO_OPENAI_BASE_URL and the model",
          endpoint,
          settings.model());
    } else if (status == 401 || status == 403) {
      log.error(
          "the provider refused Bolo's API key ({}): check BOLO_OPENAI_API_KEY — every note fails until it is fixed",
          status);
    }
    return ProviderStatus.failure(status, message, retryAfter);
  }

  private static EngineResult parseSuccess(String body, ResponseFormat format) {
    switch (format) {
      case TEXT -> {
        return new EngineResult.Transcribed(Transcript.plain(body.strip()));
      }
      // A model without timings asked for subtitles: its document is the answer, passed on.
      case SRT, VTT -> {
        return new EngineResult.Transcribed(
            new Transcript(
                body,
                List.of(),
                List.of(),
                null,
                OptionalLong.empty(),
                new Transcript.Answered(format, body)));
      }
      case JSON, VERBOSE_JSON -> {
        JsonNode answer;
        try {
          answer = JSON.readTree(body);
        } catch (IOException e) {
          return new EngineResult.Failed("the provider answered with unparseable JSON");
        }
        JsonNode text = answer.path("text");
        if (!text.isTextual()) {
          return new EngineResult.Failed("the provider's answer has no text");
        }
        String plain = text.asText().strip();
        OptionalLong duration = reportedDurationMs(answer);
        Transcript transcript =
            format == ResponseFormat.VERBOSE_JSON
                ? VerboseJson.read(answer, plain, duration, body)
                : Transcript.plain(plain, duration);
        return new EngineResult.Transcribed(transcript, usageOf(answer));
      }
    }
    throw new AssertionError(format);
  }

  /** Longest provider {@code usage} passed on; a larger one is the provider's noise, dropped. */
  private static final int MAX_USAGE_CHARS = 1024;

  /**
   * The provider's {@code usage} object as compact JSON, or null when it gave none, gave something
   * other than an object, or one too large to keep with every transcript.
   */
  static @Nullable String usageOf(JsonNode answer) {
    JsonNode usage = answer.path("usage");
    if (!usage.isObject() || usage.isEmpty()) {
      return null;
    }
    String json = usage.toString();
    return json.length() <= MAX_USAGE_CHARS ? json : null;
  }

  /**
   * The length the provider says it transcribed: {@code duration} (seconds) of verbose_json, or a
   * {@code usage} of type {@code duration} (seconds), as OpenAI's API answers.
   */
  static OptionalLong reportedDurationMs(JsonNode answer) {
    JsonNode seconds = answer.path("duration");
    if (!seconds.isNumber()) {
      JsonNode usage = answer.path("usage");
      seconds = usage.path("type").asText("").equals("duration") ? usage.path("seconds") : seconds;
    }
    if (!seconds.isNumber()) {
      return OptionalLong.empty();
    }
    double value = seconds.asDouble();
    // A day is far beyond any upload; a provider saying more is not to be believed.
    if (!(value > 0) || value > 86_400) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Math.round(value * 1000));
  }

  /**
   * The provider's own error message, sanitised for a phone; never the raw body, which may be a
   * proxy's HTML page naming hosts.
   */
  private static String providerMessage(String body, int status) {
    String fallback = "HTTP " + status;
    try {
      JsonNode error = JSON.readTree(body).path("error");
      String message = error.isTextual() ? error.asText() : error.path("message").asText("");
      return ProviderMessage.sanitised(message, fallback);
    } catch (IOException e) {
      return fallback;
    }
  }
}
