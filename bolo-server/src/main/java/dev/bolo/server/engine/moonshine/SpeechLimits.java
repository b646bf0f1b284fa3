package dev.bolo.server.engine.moonshine;

import java.time.Duration;

/**
 * How a note is cut into utterances by the voice-activity detector.
 *
 * @param longest the longest utterance; a longer stretch of speech is cut at its longest pause
 * @param shortestPause the silence that ends an utterance; shorter pauses stay inside it, so that
 *     the recogniser hears whole phrases
 * @param padding audio kept before an utterance's first speech and after its last, so that soft
 *     onsets and endings are heard; never more than half the pause to a neighbour
 * @param shortestSpeech less speech than this in an utterance is a click or a breath: dropped
 * @param threshold the speech probability at which speech starts
 * @param releaseThreshold the probability below which speech ends (lower: hysteresis)
 */
public record SpeechLimits(
    Duration longest,
    Duration shortestPause,
    Duration padding,
    Duration shortestSpeech,
    float threshold,
    float releaseThreshold) {

  public SpeechLimits {
    if (longest.compareTo(Duration.ofSeconds(2)) < 0
        || longest.compareTo(Duration.ofSeconds(MoonshineRecognizer.WINDOW_SECONDS)) > 0) {
      throw new IllegalArgumentException(
          "longest must be 2 s to " + MoonshineRecognizer.WINDOW_SECONDS + " s: " + longest);
    }
    if (padding.isNegative() || padding.compareTo(shortestPause) > 0) {
      throw new IllegalArgumentException(
          "padding must be >= 0 and at most shortestPause: " + padding);
    }
    if (shortestPause.compareTo(longest.dividedBy(4)) > 0) {
      throw new IllegalArgumentException(
          "shortestPause must be at most a quarter of longest: " + shortestPause);
    }
    if (shortestSpeech.isNegative()) {
      throw new IllegalArgumentException("shortestSpeech must be >= 0: " + shortestSpeech);
    }
    if (!(threshold > 0
        && threshold < 1
        && releaseThreshold > 0
        && releaseThreshold <= threshold)) {
      throw new IllegalArgumentException(
          "thresholds must satisfy 0 < releaseThreshold <= threshold < 1: "
              + releaseThreshold
              + ", "
              + threshold);
    }
  }

  /**
   * Utterances of at most 20 s, ended by 500 ms of silence, padded by 200 ms; speech of 250 ms at
   * least; Silero's own thresholds (0.5, and 0.15 below it to end speech).
   */
  public static SpeechLimits defaults() {
    return new SpeechLimits(
        Duration.ofSeconds(20),
        Duration.ofMillis(500),
        Duration.ofMillis(200),
        Duration.ofMillis(250),
        0.5f,
        0.35f);
  }
}
