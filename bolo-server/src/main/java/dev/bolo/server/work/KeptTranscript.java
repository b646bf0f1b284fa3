package dev.bolo.server.work;

import dev.bolo.server.engine.Transcript;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A finished transcription as kept for replay: the engine's timed transcript, never a rendered
 * document; every response format is written from it when it is answered.
 *
 * @param transcript what the engine heard (text, segments, words, a provider's own document)
 * @param engine the engine that made it
 * @param durationMs the note's length in milliseconds as charged, 0 when unknown
 * @param durationMeasured true when the server measured the length, false when the client claimed
 *     it
 * @param audioSha256 the audio hash of the work it answers, checked on replay as a bug guard
 * @param settingsFingerprint the settings fingerprint of the work it answers, checked likewise
 * @param usage the provider's {@code usage} object as compact JSON, null when it gave none
 * @param model the model that made it when a route's target did (PROTOCOL.md "Several engines"),
 *     null when it was the model the work asked for
 */
public record KeptTranscript(
    Transcript transcript,
    String engine,
    long durationMs,
    boolean durationMeasured,
    String audioSha256,
    String settingsFingerprint,
    @Nullable String usage,
    @Nullable String model) {

  public KeptTranscript {
    Objects.requireNonNull(transcript, "transcript");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(audioSha256, "audioSha256");
    Objects.requireNonNull(settingsFingerprint, "settingsFingerprint");
    if (durationMs < 0) {
      throw new IllegalArgumentException("durationMs must be >= 0: " + durationMs);
    }
  }

  /** A transcript without the provider's usage, made by the model its work asked for. */
  public KeptTranscript(
      Transcript transcript,
      String engine,
      long durationMs,
      boolean durationMeasured,
      String audioSha256,
      String settingsFingerprint) {
    this(
        transcript,
        engine,
        durationMs,
        durationMeasured,
        audioSha256,
        settingsFingerprint,
        null,
        null);
  }

  /** The transcript's plain text. */
  public String text() {
    return transcript.text();
  }

  /** True when this transcript was made for {@code key}'s audio and settings. */
  public boolean answers(WorkKey key) {
    return audioSha256.equals(key.audioSha256())
        && settingsFingerprint.equals(key.settingsFingerprint());
  }

  /** Approximate heap bytes, for bounding the replay cache. */
  public int weight() {
    int chars = transcript.chars() + (usage == null ? 0 : usage.length());
    return 256 + 2 * chars;
  }
}
