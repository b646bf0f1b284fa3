package dev.bolo.server.work;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A finished transcription as kept for replay.
 *
 * @param text the transcript text (for srt/vtt, the subtitle document)
 * @param body the engine's formatted answer for verbose_json/srt/vtt, else null
 * @param engine the engine that made it
 * @param durationMs the note's length in milliseconds, 0 when unknown
 * @param durationMeasured true when the server measured the length, false when the client claimed
 *     it
 * @param audioSha256 the audio hash of the work it answers, checked on replay as a bug guard
 * @param settingsFingerprint the settings fingerprint of the work it answers, checked likewise
 * @param usage the provider's {@code usage} object as compact JSON, null when it gave none
 * @param model the model that made it when a route's target did (PROTOCOL.md "Several engines"),
 *     null when it was the model the work asked for
 */
public record KeptTranscript(
    String text,
    @Nullable String body,
    String engine,
    long durationMs,
    boolean durationMeasured,
    String audioSha256,
    String settingsFingerprint,
    @Nullable String usage,
    @Nullable String model) {

  public KeptTranscript {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(audioSha256, "audioSha256");
    Objects.requireNonNull(settingsFingerprint, "settingsFingerprint");
    if (durationMs < 0) {
      throw new IllegalArgumentException("durationMs must be >= 0: " + durationMs);
    }
  }

  /** A transcript made by the model its work asked for. */
  public KeptTranscript(
      String text,
      @Nullable String body,
      String engine,
      long durationMs,
      boolean durationMeasured,
      String audioSha256,
      String settingsFingerprint,
      @Nullable String usage) {
    this(
        text,
        body,
        engine,
        durationMs,
        durationMeasured,
        audioSha256,
        settingsFingerprint,
        usage,
        null);
  }

  /** A transcript without the provider's usage. */
  public KeptTranscript(
      String text,
      @Nullable String body,
      String engine,
      long durationMs,
      boolean durationMeasured,
      String audioSha256,
      String settingsFingerprint) {
    this(text, body, engine, durationMs, durationMeasured, audioSha256, settingsFingerprint, null);
  }

  /** True when this transcript was made for {@code key}'s audio and settings. */
  public boolean answers(WorkKey key) {
    return audioSha256.equals(key.audioSha256())
        && settingsFingerprint.equals(key.settingsFingerprint());
  }

  /** Approximate heap bytes, for bounding the replay cache. */
  public int weight() {
    int chars =
        text.length() + (body == null ? 0 : body.length()) + (usage == null ? 0 : usage.length());
    return 256 + 2 * chars;
  }
}
