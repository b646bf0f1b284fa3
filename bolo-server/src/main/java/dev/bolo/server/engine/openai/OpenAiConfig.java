package dev.bolo.server.engine.openai;

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
 */
public record OpenAiConfig(
    String baseUrl,
    @Nullable String apiKey,
    String defaultModel,
    String defaultLanguage,
    @Nullable String azureApiVersion) {

  /** Azure OpenAI's generally available API version that serves audio transcriptions. */
  public static final String AZURE_API_VERSION = "2024-06-01";

  /** A service of OpenAI's shape. */
  public OpenAiConfig(
      String baseUrl, @Nullable String apiKey, String defaultModel, String defaultLanguage) {
    this(baseUrl, apiKey, defaultModel, defaultLanguage, null);
  }

  public OpenAiConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(defaultModel, "defaultModel");
    Objects.requireNonNull(defaultLanguage, "defaultLanguage");
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
