package dev.bolo.server.engine.gemini;

import dev.bolo.server.engine.EngineLimits;
import java.util.Objects;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * How to reach Gemini. Immutable; {@link #toString()} never shows the API key.
 *
 * @param baseUrl the API root, {@value #DEFAULT_BASE_URL} unless a proxy stands in between
 * @param apiKey the key sent as {@code x-goog-api-key}
 * @param model the model used when the client names none, e.g. {@value #DEFAULT_MODEL}
 * @param httpClient shared with the rest of the gateway; per-call timeouts are set on each call
 * @param inlineLimitBytes the largest request body sent with the audio inline; above it the note
 *     goes through the Files API first
 * @param limits the operator's replacements for Google's documented request limits ({@code
 *     BOLO_GEMINI_MAX_REQUEST_BYTES}, {@code BOLO_GEMINI_MAX_SECONDS})
 */
public record GeminiConfig(
    String baseUrl,
    String apiKey,
    String model,
    OkHttpClient httpClient,
    long inlineLimitBytes,
    EngineLimits.Overrides limits) {

  public static final String DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

  public static final String DEFAULT_MODEL = "gemini-2.5-flash";

  /**
   * Google's documented limit for a whole {@code generateContent} request with inline data is 20
   * MB; decimal megabytes are the smaller reading, so the safe one.
   */
  public static final long DEFAULT_INLINE_LIMIT_BYTES = 20_000_000L;

  public GeminiConfig {
    Objects.requireNonNull(httpClient, "httpClient");
    Objects.requireNonNull(limits, "limits");
    if (HttpUrl.parse(baseUrl) == null) {
      throw new IllegalArgumentException("baseUrl is not an http(s) URL: " + baseUrl);
    }
    // Checked here because OkHttp's own header check would quote the key in its message.
    if (!apiKey.matches("[\\x21-\\x7e]+")) {
      throw new IllegalArgumentException(
          "apiKey must be non-empty printable ASCII without spaces (length "
              + apiKey.length()
              + ")");
    }
    if (model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    if (inlineLimitBytes < 1) {
      throw new IllegalArgumentException("inlineLimitBytes must be >= 1: " + inlineLimitBytes);
    }
  }

  /** Google's endpoint, the default model and the documented inline limit. */
  public static GeminiConfig of(String apiKey, OkHttpClient httpClient) {
    return new GeminiConfig(
        DEFAULT_BASE_URL,
        apiKey,
        DEFAULT_MODEL,
        httpClient,
        DEFAULT_INLINE_LIMIT_BYTES,
        EngineLimits.Overrides.NONE);
  }

  public GeminiConfig withBaseUrl(String baseUrl) {
    return new GeminiConfig(baseUrl, apiKey, model, httpClient, inlineLimitBytes, limits);
  }

  public GeminiConfig withModel(String model) {
    return new GeminiConfig(baseUrl, apiKey, model, httpClient, inlineLimitBytes, limits);
  }

  public GeminiConfig withInlineLimitBytes(long inlineLimitBytes) {
    return new GeminiConfig(baseUrl, apiKey, model, httpClient, inlineLimitBytes, limits);
  }

  public GeminiConfig withLimits(EngineLimits.Overrides limits) {
    return new GeminiConfig(baseUrl, apiKey, model, httpClient, inlineLimitBytes, limits);
  }

  /** The key stays out of logs and exception messages. */
  @Override
  public String toString() {
    return "GeminiConfig[baseUrl="
        + baseUrl
        + ", apiKey=***, model="
        + model
        + ", inlineLimitBytes="
        + inlineLimitBytes
        + "]";
  }
}
