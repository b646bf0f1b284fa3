package dev.bolo.server.engine.offline;

import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.moonshine.ModelFolder;
import dev.bolo.server.engine.moonshine.MoonshineRecognizer;
import java.util.function.LongSupplier;

/**
 * Creates the offline engine, named {@code offline}: Moonshine tiny (English) on ONNX Runtime, in
 * the gateway's process, with Silero VAD finding the speech; the weights ship in the repository's
 * {@code models/} folder (and the container image), nothing is downloaded. It reads every container
 * a phone or browser records (AAC in MP4/M4A and ADTS, AMR-NB and AMR-WB in 3GP, Opus and Vorbis in
 * WebM and Ogg, MP3, FLAC, WAV of any rate, depth and channels), decoded in process by FFmpeg's
 * libraries into 16 kHz mono a frame at a time; a note that cannot be decoded is answered {@code
 * InvalidAudio}. It speaks English only.
 *
 * <p>A note is cut at its pauses into pieces of at most 30 s, recognised on all recognisers at once
 * (each cut again into utterances by the detector) and stitched with their real times, so a note of
 * an hour needs no more memory than a short one. Response formats {@code verbose_json}, {@code srt}
 * and {@code vtt} are built from the utterances' times, one segment per utterance; Moonshine gives
 * no word times, so word timestamps are refused before any work. With {@code stream=true} each
 * piece's text is sent as soon as it and the ones before it are recognised.
 *
 * <p>The weights' hashes are checked when the engine is created (a missing or altered file stops
 * the start with one line saying which); the sessions load in the background: {@link
 * SpeechEngine#readiness()} is not ready until they have, and notes sent before then are answered
 * {@code Unavailable}. When every recogniser is busy and the short queue of notes is full the
 * engine answers {@code Unavailable} with a Retry-After. An {@link Error} in a recogniser fails
 * only the note it was recognising ({@code Failed}, naming it). The engine is thread safe.
 */
public final class OfflineEngine {

  /** The engine's name in settings and responses. */
  public static final String NAME = "offline";

  /** The only model. */
  public static final String MODEL = MoonshineRecognizer.MODEL;

  /** Where the model's weights come from: the npm package and version that ship them. */
  public static final String SOURCE = "@moonshine-ai/moonshine-js@0.1.29";

  /** The languages its model recognises. */
  public static final java.util.List<String> LANGUAGES = java.util.List.of("en");

  private OfflineEngine() {}

  /**
   * Checks the weights in the models folder the system properties name ({@link
   * ModelFolder#fromSystemProperties}) and starts an engine; the sessions begin loading on a
   * background thread at once. A note's deadline is kept on {@code ticker} (elapsed nanoseconds).
   *
   * @throws dev.bolo.server.engine.moonshine.ModelFilesException when a weights file is missing or
   *     altered; its message is one line
   */
  public static SpeechEngine create(OfflineConfig config, LongSupplier ticker) {
    return create(config, ModelFolder.fromSystemProperties(), ticker);
  }

  /** {@link #create(OfflineConfig, LongSupplier)} with the weights in {@code folder}. */
  public static SpeechEngine create(OfflineConfig config, ModelFolder folder, LongSupplier ticker) {
    MoonshineRecognizer.Weights weights = MoonshineRecognizer.Weights.readFrom(folder);
    return new LocalEngine(
        config,
        () ->
            new MoonshineRecognizers(
                MoonshineRecognizer.load(weights, MoonshineRecognizer.Options.defaults())),
        ticker);
  }
}
