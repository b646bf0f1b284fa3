package dev.bolo.server.engine.offline;

import dev.bolo.server.engine.SpeechEngine;

/**
 * Creates the offline engine, named {@code offline}: CMU Sphinx4 with its US-English model from the
 * class path, nothing downloaded. It reads every container a phone or browser records (AAC in
 * MP4/M4A and ADTS, AMR-NB and AMR-WB in 3GP, Opus and Vorbis in WebM and Ogg, MP3, FLAC, WAV of
 * any rate, depth and channels), decoded in process by FFmpeg's libraries into 16 kHz mono a frame
 * at a time; a note that cannot be decoded is answered {@code InvalidAudio}. It speaks English
 * only.
 *
 * <p>A note is cut at its pauses into utterances of at most 30 s, recognised on all recognisers at
 * once and stitched with their real times, so a note of an hour needs no more memory than a short
 * one. Response formats {@code verbose_json}, {@code srt} and {@code vtt} are built from the
 * recogniser's word timings, one segment per utterance; with {@code stream=true} each utterance's
 * text is sent as soon as it and the ones before it are recognised.
 *
 * <p>The model loads in the background: {@link SpeechEngine#readiness()} is not ready until it has,
 * and notes sent before then are answered {@code Unavailable}. When every recogniser is busy and
 * the short queue of notes is full the engine answers {@code Unavailable} with a Retry-After. An
 * {@link Error} in a recogniser fails only the note it was recognising ({@code Failed}, naming it)
 * and the recogniser is replaced. The engine is thread safe.
 */
public final class OfflineEngine {

  /** The engine's name in settings and responses. */
  public static final String NAME = "offline";

  /** The only model: Sphinx4's US-English acoustic model, dictionary and trigram model. */
  public static final String MODEL = "sphinx4-en-us";

  /** The languages its model recognises. */
  public static final java.util.List<String> LANGUAGES = java.util.List.of("en");

  private OfflineEngine() {}

  /** Starts an engine; the model begins loading on a background thread at once. */
  public static SpeechEngine create(OfflineConfig config) {
    return new SphinxEngine(config, () -> SphinxModel.load(config.tuning()));
  }
}
