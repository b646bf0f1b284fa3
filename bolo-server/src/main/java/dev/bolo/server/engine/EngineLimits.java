package dev.bolo.server.engine;

import java.util.OptionalLong;

/**
 * The most one provider request may carry, as the provider documents it: a note within both limits
 * is sent whole; a longer or larger one is sent in pieces cut at its pauses (PROTOCOL.md rule 10).
 *
 * @param maxRequestBytes the largest request the provider takes, the audio and the form around it
 * @param maxSeconds the longest audio the model takes in one request
 */
public record EngineLimits(long maxRequestBytes, long maxSeconds) {

  /** No limit beyond the gateway's own upload limit: engines that take any note whole. */
  public static final EngineLimits NONE = new EngineLimits(Long.MAX_VALUE, Long.MAX_VALUE);

  /**
   * What the gateway's request to a provider adds to the note: the multipart form's boundaries,
   * headers and text parts (model, language, prompt of at most a few thousand characters, format,
   * temperature). Not the room a client's upload may take around its note ({@code
   * UploadReader.CLIENT_FORM_ALLOWANCE_BYTES}).
   */
  public static final long PROVIDER_FORM_BYTES = 16 * 1024;

  public EngineLimits {
    if (maxRequestBytes <= PROVIDER_FORM_BYTES) {
      throw new IllegalArgumentException(
          "maxRequestBytes must be > " + PROVIDER_FORM_BYTES + ": " + maxRequestBytes);
    }
    if (maxSeconds < 1) {
      throw new IllegalArgumentException("maxSeconds must be >= 1: " + maxSeconds);
    }
  }

  /** Whether a note of {@code bytes} and {@code millis} goes in one request. */
  public boolean admits(long bytes, long millis) {
    return bytes <= maxRequestBytes - PROVIDER_FORM_BYTES && millis / 1000.0 <= maxSeconds;
  }

  /** These limits with the operator's overrides, where given. */
  public EngineLimits overriddenBy(OptionalLong requestBytes, OptionalLong seconds) {
    return new EngineLimits(requestBytes.orElse(maxRequestBytes), seconds.orElse(maxSeconds));
  }

  /** These limits with {@code overrides}, where given. */
  public EngineLimits overriddenBy(Overrides overrides) {
    return overriddenBy(overrides.maxRequestBytes(), overrides.maxSeconds());
  }

  /**
   * The operator's replacements for an engine's documented limits, for a compatible server that
   * takes more or less ({@code BOLO_OPENAI_MAX_REQUEST_BYTES} and its twins); each applies to every
   * engine of its kind.
   *
   * @param maxRequestBytes replaces {@link #maxRequestBytes()}, when given
   * @param maxSeconds replaces {@link #maxSeconds()}, when given
   */
  public record Overrides(OptionalLong maxRequestBytes, OptionalLong maxSeconds) {

    /** The engine's own limits. */
    public static final Overrides NONE = new Overrides(OptionalLong.empty(), OptionalLong.empty());

    public Overrides {
      java.util.Objects.requireNonNull(maxRequestBytes, "maxRequestBytes");
      java.util.Objects.requireNonNull(maxSeconds, "maxSeconds");
    }
  }
}
