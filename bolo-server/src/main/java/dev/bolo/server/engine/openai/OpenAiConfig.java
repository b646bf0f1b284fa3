package dev.bolo.server.engine.openai;

import dev.bolo.server.engine.EngineLimits;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where and how to reach an OpenAI-compatible transcription service (OpenAI, Groq, whisper.cpp
 * server, speaches, LocalAI).
 *
 * @param baseUrl up to and including the version, e.g. {@code https://api.openai.com/v1}
 * @param apiKey sent as a bearer token; null for local servers that need none
 * @param defaultModel sent when the client names no model
 * @param defaultLanguage sent when the client names no language; empty sends none (whisper.cpp's
 *     server assumes English then, so set {@code auto} for it)
 * @param azureApiVersion set for Azure OpenAI: the {@code api-version} of its URLs, {@code
 *     {base}/openai/deployments/{deployment}/audio/transcriptions?api-version=…}, where the model
 *     asked is the deployment and the key goes in an {@code api-key} header; null for OpenAI's
 *     shape
 * @param limits the operator's replacements for OpenAI's documented request limits ({@code
 *     BOLO_OPENAI_MAX_REQUEST_BYTES}, {@code BOLO_OPENAI_MAX_SECONDS})
 */
public record OpenAiConfig(
    String baseUrl,
    @Nullable String apiKey,
    String defaultModel,
    String defaultLanguage,
    @Nullable String azureApiVersion,
    EngineLimits.Overrides limits) {

  /** Azure OpenAI's generally available API version that serves audio transcriptions. */
  public static final String AZURE_API_VERSION = "2024-06-01";

  /** A service of OpenAI's shape. */
  public OpenAiConfig(
      String baseUrl, @Nullable String apiKey, String defaultModel, String defaultLanguage) {
    this(baseUrl, apiKey, defaultModel, defaultLanguage, null);
  }

  /** A service of OpenAI's shape, or Azure's when {@code azureApiVersion} is set. */
  public OpenAiConfig(
      String baseUrl,
      @Nullable String apiKey,
      String defaultModel,
      String defaultLanguage,
      @Nullable String azureApiVersion) {
    this(
        baseUrl,
        apiKey,
        defaultModel,
        defaultLanguage,
        azureApiVersion,
        EngineLimits.Overrides.NONE);
  }

  /** The same service with OpenAI's documented limits replaced by {@code limits}. */
  public OpenAiConfig withLimits(EngineLimits.Overrides limits) {
    return new OpenAiConfig(
        baseUrl, apiKey, defaultModel, defaultLanguage, azureApiVersion, limits);
  }

  public OpenAiConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(defaultModel, "defaultModel");
    Objects.requireNonNull(defaultLanguage, "defaultLanguage");
    Objects.requireNonNull(limits, "limits");
    if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw new IllegalArgumentException("BOLO_OPENAI_BASE_URL must be an http(s) URL: " + baseUrl);
    }
  }

  /** Leaves the key out, so logging the configuration cannot leak it. */
  @Override
  public String toString() {
    return "OpenAiConfig[baseUrl="
        + baseUrl
        + ", defaultModel="
        + defaultModel
        + ", defaultLanguage="
        + defaultLanguage
        + "]";
  }
}
