package dev.bolo.server.engine.offline;

import dev.bolo.server.engine.SpeechEngine;

/**
 * Creates the offline engine, named {@code offline}: CMU Sphinx4 with its US-English model from the
 * class path, nothing downloaded. It reads PCM WAV at any sample rate, sample size (8, 16, 24, 32
 * bit) and channel count, converting to 16 kHz mono in process; other containers are answered
 * {@code UnsupportedAudio}. It speaks English only. Response formats {@code verbose_json}, {@code
 * srt} and {@code vtt} are built from the recogniser's word timings, one segment per stretch of
 * speech between pauses.
 *
 * <p>The model loads in the background: {@link SpeechEngine#readiness()} is not ready until it has,
 * and notes sent before then are answered {@code Unavailable}. Notes run on a bounded pool of
 * platform threads; when it and its short queue are full the engine answers {@code Unavailable}
 * with a Retry-After. The engine is thread safe.
 */
public final class OfflineEngine {

  /** The engine's name in settings and responses. */
  public static final String NAME = "offline";

  /** The only model: Sphinx4's US-English acoustic model, dictionary and trigram model. */
  public static final String MODEL = "sphinx4-en-us";

  private OfflineEngine() {}

  /** Starts an engine; the model begins loading on a background thread at once. */
  public static SpeechEngine create(OfflineConfig config) {
    return new SphinxEngine(config, () -> SphinxModel.load(config.tuning()));
  }
}
