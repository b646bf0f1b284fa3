package dev.bolo.server.engine.gemini;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.upload.AudioContent;
import java.math.BigDecimal;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transcribes with Gemini's {@code POST /v1beta/models/{model}:generateContent}: the note inline as
 * Base64 while the whole request stays under the inline limit, else uploaded through the Files API
 * first and referenced by its URI. Stateless apart from its configuration, so safe for concurrent
 * calls.
 */
final class GenerateContentEngine implements SpeechEngine {

  private static final Logger log = LoggerFactory.getLogger(GenerateContentEngine.class);

  /** Model ids as Gemini names them ({@code gemini-2.5-flash}); keeps the URL path one segment. */
  private static final Pattern MODEL_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private final GeminiConfig config;
  private final HttpUrl baseUrl;
  private final LongSupplier ticker;
  private final GeminiAnswers answers;
  private final GeminiErrors errors;
  private final GeminiFiles files;

  GenerateContentEngine(GeminiConfig config, LongSupplier ticker, Sleeper sleeper) {
    this.config = config;
    this.baseUrl = Objects.requireNonNull(HttpUrl.parse(config.baseUrl()), "baseUrl");
    this.ticker = ticker;
    // Jackson's default 20-million-character string cap would call a long transcript malformed;
    // the answer's size is bounded by AnswerLimit on the HTTP client instead.
    ObjectMapper json =
        new ObjectMapper(
            com.fasterxml.jackson.core.JsonFactory.builder()
                .streamReadConstraints(
                    com.fasterxml.jackson.core.StreamReadConstraints.builder()
                        .maxStringLength(Integer.MAX_VALUE)
                        .build())
                .build());
    this.answers = new GeminiAnswers(json);
    this.errors = new GeminiErrors(json);
    this.files =
        new GeminiFiles(config.httpClient(), baseUrl, config.apiKey(), json, errors, sleeper);
  }

  @Override
  public String name() {
    return "gemini";
  }

  @Override
  public String defaultModel() {
    return config.model();
  }

  /**
   * Google's documented limits: a note too large to send inline goes through the Files API, which
   * takes files up to 2 GB; one prompt takes at most 9.5 hours of audio.
   */
  @Override
  public EngineLimits limits(String model) {
    return new EngineLimits(2L * 1024 * 1024 * 1024, 34_200).overriddenBy(config.limits());
  }

  /** Gemini is a general model: asked to, it writes the speech in English (see the instruction). */
  @Override
  public boolean canTranslate() {
    return true;
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    Settings settings = request.settings();
    // Gemini gives text without timings; segment and subtitle formats would have to be invented.
    if (settings.responseFormat().isFormattedBody()) {
      return new EngineResult.Rejected(
          "the gemini engine answers response_format json or text only, not "
              + settings.responseFormat().wireName());
    }
    String model = modelId(settings.model());
    if (!MODEL_ID.matcher(model).matches()) {
      return new EngineResult.Rejected("not a Gemini model name: " + settings.model());
    }
    Deadline deadline = Deadline.after(request.timeout(), ticker);
    AudioContent audio = request.audio();
    String mimeType = GenerateContentBody.mimeType(audio.container());
    String instruction = TranscriptionInstruction.forSettings(settings);
    BigDecimal temperature = new BigDecimal(settings.temperature());
    @Nullable String clientModel = model.equals(modelId(config.model())) ? null : model;

    long bound = GenerateContentBody.inlineSizeBound(audio.size(), instruction);
    if (bound <= config.inlineLimitBytes()) {
      return generate(
          model,
          clientModel,
          new GenerateContentBody(
              new GenerateContentBody.Audio.Inline(audio), mimeType, instruction, temperature),
          deadline);
    }
    log.info(
        "uploading a {}-byte note to the Gemini Files API (inline requests stop at {} bytes)",
        audio.size(),
        config.inlineLimitBytes());
    return switch (files.upload(audio, mimeType, deadline, request.requestId())) {
      case GeminiFiles.Upload.NotUploaded notUploaded -> notUploaded.failure();
      case GeminiFiles.Upload.Uploaded uploaded -> {
        try {
          yield generate(
              model,
              clientModel,
              new GenerateContentBody(
                  new GenerateContentBody.Audio.Uploaded(uploaded.uri()),
                  mimeType,
                  instruction,
                  temperature),
              deadline);
        } finally {
          files.deleteLater(uploaded.name(), request.requestId());
        }
      }
    };
  }

  private EngineResult generate(
      String model, @Nullable String clientModel, GenerateContentBody body, Deadline deadline) {
    Request request =
        new Request.Builder()
            .url(
                baseUrl
                    .newBuilder()
                    .addPathSegment("v1beta")
                    .addPathSegment("models")
                    .addPathSegment(model + ":generateContent")
                    .build())
            .header("x-goog-api-key", config.apiKey())
            .post(body)
            .build();
    EngineResult result =
        switch (Exchanges.send(config.httpClient(), request, deadline, "generateContent")) {
          case Reply.Broken broken -> broken.failure();
          case Reply.Answer answer when !answer.isSuccessful() ->
              errors.failure(answer, "generateContent", clientModel);
          case Reply.Answer answer -> answers.transcript(answer.body());
        };
    if (result instanceof EngineResult.Failure failure) {
      log.warn("Gemini {} did not transcribe: {}", model, failure.message());
    }
    return result;
  }

  /**
   * Gemini accepts {@code models/gemini-2.5-flash} as well as the bare id; the path wants the id.
   */
  private static String modelId(String model) {
    return model.startsWith("models/") ? model.substring("models/".length()) : model;
  }

  /** The shared HTTP client belongs to the composition root, which closes it. */
  @Override
  public void close() {}
}
