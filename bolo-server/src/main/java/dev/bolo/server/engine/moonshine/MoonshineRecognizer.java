package dev.bolo.server.engine.moonshine;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.bolo.decode.MonoSamples;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns 16 kHz mono audio into timed text: Silero VAD cuts it into utterances ({@link
 * UtteranceCutter}), and Moonshine tiny recognises each ({@link MoonshineDecoder}); the segments
 * are timed by the utterances. Audio with no speech, silence or noise, gives no segments at all.
 *
 * <p>An utterance longer than the model's window ({@value #WINDOW_SECONDS} s, the longest audio it
 * was trained on) is split at its quietest point into parts that fit, each recognised; nothing is
 * truncated. The cutter keeps utterances shorter than that, so this is a guard.
 *
 * <p>Loading checks every model file's SHA-256 first ({@link ModelFolder}) and fails with a {@link
 * ModelFilesException} whose message is one line. Thread safe: the sessions are shared, and any
 * number of notes may be recognised at once; {@link #close} only when none is.
 */
public final class MoonshineRecognizer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MoonshineRecognizer.class);

  /** The model's name in settings and responses. */
  public static final String MODEL = "moonshine-tiny-en";

  /** The longest audio the model hears at once: Moonshine was trained on up to 30 s. */
  public static final int WINDOW_SECONDS = 30;

  /** Moonshine's own lower bound on a call: shorter audio holds no word. */
  private static final int SHORTEST_SAMPLES = MoonshineDecoder.RATE / 10;

  private final Options options;
  private final Vocabulary vocabulary;
  private final MoonshineDecoder decoder;
  private final SileroVad vad;

  /**
   * How the recogniser runs.
   *
   * @param intraOpThreads threads ONNX Runtime may use inside one model call; 1 lets several notes
   *     share the cores without contending
   * @param limits how notes are cut into utterances
   * @param decoding how the decoder chooses tokens
   */
  public record Options(int intraOpThreads, SpeechLimits limits, Decoding decoding) {
    public Options {
      if (intraOpThreads < 1) {
        throw new IllegalArgumentException("intraOpThreads must be >= 1: " + intraOpThreads);
      }
    }

    /**
     * One thread per call, {@link SpeechLimits#defaults()}, {@link Decoding#defaults()}. Two
     * threads were measured side by side ({@code MoonshineBench}, docs/engines.md): a 10.4 s note
     * alone took 1.05 s against 1.07 s, for 41 % more CPU per second of audio, since a decoder step
     * is too small to share; notes and pieces side by side use the cores instead.
     */
    public static Options defaults() {
      return new Options(1, SpeechLimits.defaults(), Decoding.defaults());
    }
  }

  private MoonshineRecognizer(
      Options options, Vocabulary vocabulary, MoonshineDecoder decoder, SileroVad vad) {
    this.options = options;
    this.vocabulary = vocabulary;
    this.decoder = decoder;
    this.vad = vad;
  }

  /**
   * Checks and loads the models from {@code folder}: about a second.
   *
   * @throws ModelFilesException when a file is missing or altered, or cannot be loaded
   */
  public static MoonshineRecognizer load(ModelFolder folder, Options options) {
    return load(Weights.readFrom(folder), options);
  }

  /**
   * The model files' bytes, each checked against its pinned SHA-256: what {@link #load(Weights,
   * Options)} makes sessions of. Reading and checking them takes tens of milliseconds, so a gateway
   * checks them before it starts and loads the sessions in the background.
   */
  public static final class Weights {
    private final Path folder;
    private final byte[] encoder;
    private final byte[] decoder;
    private final byte[] vad;
    private final Vocabulary vocabulary;

    private Weights(
        Path folder, byte[] encoder, byte[] decoder, byte[] vad, Vocabulary vocabulary) {
      this.folder = folder;
      this.encoder = encoder;
      this.decoder = decoder;
      this.vad = vad;
      this.vocabulary = vocabulary;
    }

    /**
     * Reads and checks every file of {@code folder}.
     *
     * @throws ModelFilesException when a file is missing, unreadable or altered; one line
     */
    public static Weights readFrom(ModelFolder folder) {
      return new Weights(
          folder.path(),
          folder.read(ModelFile.ENCODER),
          folder.read(ModelFile.DECODER),
          folder.read(ModelFile.VAD),
          Vocabulary.parse(folder.read(ModelFile.VOCABULARY)));
    }
  }

  /**
   * Makes the sessions of checked weights: about a second.
   *
   * @throws ModelFilesException when ONNX Runtime cannot load them
   */
  public static MoonshineRecognizer load(Weights weights, Options options) {
    OrtEnvironment environment = OrtEnvironment.getEnvironment();
    List<AutoCloseable> opened = new ArrayList<>();
    try (OrtSession.SessionOptions session = sessionOptions(options.intraOpThreads());
        OrtSession.SessionOptions single = sessionOptions(1)) {
      OrtSession encoder = open(environment, weights.encoder, session, opened);
      OrtSession decoder = open(environment, weights.decoder, session, opened);
      // A window of the detector is tiny work: more threads would only cost their hand-offs.
      OrtSession vad = open(environment, weights.vad, single, opened);
      return new MoonshineRecognizer(
          options,
          weights.vocabulary,
          new MoonshineDecoder(environment, encoder, decoder, options.decoding()),
          new SileroVad(environment, vad));
    } catch (OrtException e) {
      for (AutoCloseable session : opened) {
        try {
          session.close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw new ModelFilesException(
          "ONNX Runtime cannot load the models in " + weights.folder + ": " + e.getMessage(), e);
    }
  }

  private static OrtSession open(
      OrtEnvironment environment,
      byte[] model,
      OrtSession.SessionOptions options,
      List<AutoCloseable> opened)
      throws OrtException {
    OrtSession session = environment.createSession(model, options);
    opened.add(session);
    return session;
  }

  private static OrtSession.SessionOptions sessionOptions(int threads) throws OrtException {
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    options.setIntraOpNumThreads(threads);
    options.setInterOpNumThreads(1);
    options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
    options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
    // Worker threads that spin between calls take a core from the notes recognised beside them.
    options.addConfigEntry("session.intra_op.allow_spinning", "0");
    // The decoder's output layer is the token embedding, stored quantized: left to ONNX Runtime's
    // quantized-graph handling, it is dequantized again at every token (32,768 x 288 values, a
    // quarter of a decoder step). Without that handling the constant is folded once at load; the
    // model's own quantized matrix products are fused as before, and the tokens are the same.
    options.addConfigEntry("session.disable_quant_qdq", "1");
    return options;
  }

  /** What the recogniser runs with. */
  public Options options() {
    return options;
  }

  /**
   * Recognises a note held in memory.
   *
   * @param samples16kMono the note, mono floats in [-1, 1] at 16 kHz; not changed
   */
  public TimedTranscript recognize(float[] samples16kMono) {
    try {
      return recognize(
          MonoSamples.of(samples16kMono, MoonshineDecoder.RATE), () -> false, segment -> {});
    } catch (IOException e) {
      throw new UncheckedIOException("an array cannot fail to be read", e);
    }
  }

  /**
   * Recognises a note as it is read, an utterance at a time, in bounded memory (about one
   * utterance's samples besides what the models hold).
   *
   * @param note 16 kHz mono samples, read to their end
   * @param stop polled between tokens; true stops at once with the segments done so far
   * @param heard given each segment as soon as it is recognised, in order
   * @throws IOException when the note cannot be read
   */
  public TimedTranscript recognize(
      MonoSamples note, BooleanSupplier stop, Consumer<TimedTranscript.Segment> heard)
      throws IOException {
    UtteranceCutter cutter = new UtteranceCutter(note, vad.stream(), options.limits());
    List<TimedTranscript.Segment> segments = new ArrayList<>();
    try {
      UtteranceCutter.Utterance utterance;
      while (!stop.getAsBoolean() && (utterance = cutter.next()) != null) {
        String text = recognizeUtterance(utterance.samples(), stop);
        if (!text.isBlank()) {
          TimedTranscript.Segment segment =
              new TimedTranscript.Segment(
                  millis(utterance.startSample()), millis(utterance.endSample()), text);
          segments.add(segment);
          heard.accept(segment);
        }
      }
    } catch (OrtException e) {
      throw new IllegalStateException(
          "ONNX Runtime failed on a loaded model: " + e.getMessage(), e);
    }
    return new TimedTranscript(segments, millis(cutter.samplesRead()));
  }

  /** The text of one utterance; one longer than the window is split into parts that fit. */
  String recognizeUtterance(float[] samples, BooleanSupplier stop) throws OrtException {
    List<String> parts = new ArrayList<>();
    for (float[] part : WindowSplit.parts(samples, WINDOW_SECONDS * MoonshineDecoder.RATE)) {
      if (part.length < SHORTEST_SAMPLES) {
        continue;
      }
      MoonshineDecoder.Decoded decoded = decoder.decode(part, stop);
      // Rare, and the sign of audio the model could not make sense of: worth a line each.
      if (decoded.ending() == MoonshineDecoder.Ending.LOOP_CUT
          || decoded.ending() == MoonshineDecoder.Ending.TOKEN_BOUND) {
        log.info(
            "Moonshine stopped early ({}) on {} s of audio after {} tokens",
            decoded.ending(),
            String.format(
                java.util.Locale.ROOT, "%.1f", part.length / (double) MoonshineDecoder.RATE),
            decoded.tokens().length);
      }
      String text = vocabulary.decode(decoded.tokens(), decoded.tokens().length).strip();
      if (!text.isEmpty()) {
        parts.add(text);
      }
    }
    return String.join(" ", parts);
  }

  private static long millis(long sample) {
    return sample * 1000 / MoonshineDecoder.RATE;
  }

  @Override
  public void close() throws OrtException {
    try (decoder;
        vad) {
      // both closed, the second even when the first fails
    }
  }
}
