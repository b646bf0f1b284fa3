package dev.bolo.server.engine.moonshine;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Moonshine tiny's two graphs: the encoder, run once per utterance, and the merged decoder, run
 * once per token with its key/value cache, choosing the likeliest token each time (greedy). It
 * stops at the end token, at {@value #TOKENS_PER_SECOND} tokens per second of audio (as Moonshine's
 * own code bounds it: fast speech is about four) and {@value #TOKENS_BEYOND_THE_RATE} more, or when
 * asked to. A decoder that reached the bound looping ({@link RepetitionGuard}) has the loop cut,
 * its phrase kept once.
 *
 * <p>Thread safe: ONNX Runtime's {@code run} may be called on one session from several threads, and
 * each call here keeps its tensors to itself.
 */
final class MoonshineDecoder implements AutoCloseable {

  /** Samples per second the model hears. */
  static final int RATE = 16_000;

  static final double TOKENS_PER_SECOND = 6;

  /**
   * Tokens allowed beyond that rate: a short sentence. Moonshine's own bound counts the silence
   * around a clip; an utterance cut by the VAD is all speech, and 1.7 s of fast speech ("He was not
   * an ill-disposed young man,", 11 tokens) was cut short at 10.
   */
  static final int TOKENS_BEYOND_THE_RATE = 16;

  /** The decoder's layers, key/value heads and head width: Moonshine tiny's shape. */
  private static final int LAYERS = 6;

  private static final int KV_HEADS = 8;
  private static final int HEAD_DIM = 36;

  private static final long START_TOKEN = 1;
  private static final int END_TOKEN = 2;

  private final OrtEnvironment environment;
  private final OrtSession encoder;
  private final OrtSession decoder;
  private final Decoding search;

  /** The outputs asked for after the first step: the encoder's cache does not change. */
  private final Set<String> cachedStepOutputs;

  private final List<String> pastNames = new ArrayList<>();
  private final List<String> encoderPresentNames = new ArrayList<>();
  private final List<String> decoderPresentNames = new ArrayList<>();

  MoonshineDecoder(
      OrtEnvironment environment, OrtSession encoder, OrtSession decoder, Decoding search) {
    this.environment = environment;
    this.encoder = encoder;
    this.decoder = decoder;
    this.search = search;
    Set<String> outputs = new LinkedHashSet<>();
    outputs.add("logits");
    for (int layer = 0; layer < LAYERS; layer++) {
      for (String kind : List.of("key", "value")) {
        outputs.add(present(layer, "decoder", kind));
        decoderPresentNames.add(present(layer, "decoder", kind));
        encoderPresentNames.add(present(layer, "encoder", kind));
        pastNames.add(past(layer, "decoder", kind));
        pastNames.add(past(layer, "encoder", kind));
      }
    }
    this.cachedStepOutputs = Set.copyOf(outputs);
  }

  /** Why decoding stopped. */
  enum Ending {
    /** The model wrote its end token. */
    END_TOKEN,
    /** The bound of tokens per second of audio was reached. */
    TOKEN_BOUND,
    /** The bound was reached with the same phrase looping; the loop was cut. */
    LOOP_CUT,
    /** The caller asked to stop. */
    STOPPED
  }

  /**
   * What the decoder wrote for an utterance.
   *
   * @param tokens the token ids, without the start and end tokens
   * @param ending why it stopped
   */
  record Decoded(int[] tokens, Ending ending) {}

  /**
   * Decodes one utterance.
   *
   * @param samples 16 kHz mono, at most the model's window ({@link
   *     MoonshineRecognizer#WINDOW_SECONDS})
   * @param stop polled before each token; true ends decoding with what was written
   */
  Decoded decode(float[] samples, BooleanSupplier stop) throws OrtException {
    int bound = (int) Math.ceil(samples.length * TOKENS_PER_SECOND / RATE) + TOKENS_BEYOND_THE_RATE;
    int width = search.beamWidth();
    BeamSearch beams = new BeamSearch(width, search.lengthPenalty(), END_TOKEN);
    List<AutoCloseable> held = new ArrayList<>();
    // The last step's outputs and the cache reordered from them: closed at the next step, or when
    // decoding ends, whichever way it ends (ONNX Runtime's native memory is not collected).
    List<AutoCloseable> previous = new ArrayList<>();
    try {
      OnnxTensor audio =
          hold(
              held,
              OnnxTensor.createTensor(
                  environment, FloatBuffer.wrap(samples), new long[] {1, samples.length}));
      OrtSession.Result encoded = hold(held, encoder.run(Map.of("input_values", audio)));
      OnnxTensor hidden = (OnnxTensor) value(encoded, "last_hidden_state");
      if (width > 1) {
        hidden = hold(held, repeated(hidden, width));
      }
      OnnxTensor empty =
          hold(
              held,
              OnnxTensor.createTensor(
                  environment, FloatBuffer.allocate(0), new long[] {width, KV_HEADS, 0, HEAD_DIM}));
      OnnxTensor noCache = hold(held, OnnxTensor.createTensor(environment, new boolean[] {false}));
      OnnxTensor withCache = hold(held, OnnxTensor.createTensor(environment, new boolean[] {true}));
      Map<String, OnnxTensor> past = new HashMap<>();
      for (String name : pastNames) {
        past.put(name, empty);
      }
      long[] next = new long[width];
      java.util.Arrays.fill(next, START_TOKEN);
      OrtSession.Result first = null;
      while (true) {
        if (stop.getAsBoolean()) {
          return new Decoded(beams.bestRunning(), Ending.STOPPED);
        }
        if (beams.length() == bound) {
          int[] best = beams.best();
          if (best != beams.bestRunning()) {
            return new Decoded(best, Ending.END_TOKEN);
          }
          // Speech ends within the bound; a decoder that ran into it looping is cut to one copy.
          int cut = RepetitionGuard.cutAt(best, best.length);
          return cut < 0
              ? new Decoded(best, Ending.TOKEN_BOUND)
              : new Decoded(java.util.Arrays.copyOf(best, cut), Ending.LOOP_CUT);
        }
        OrtSession.Result step;
        try (OnnxTensor ids =
            OnnxTensor.createTensor(environment, LongBuffer.wrap(next), new long[] {width, 1})) {
          Map<String, OnnxTensor> inputs = new HashMap<>(past);
          inputs.put("input_ids", ids);
          inputs.put("encoder_hidden_states", hidden);
          inputs.put("use_cache_branch", first == null ? noCache : withCache);
          step = first == null ? decoder.run(inputs) : decoder.run(inputs, cachedStepOutputs);
        }
        // What the step read is no longer needed, but for the first step's encoder cache.
        closeAll(previous);
        if (first == null) {
          first = hold(held, step);
          for (String name : encoderPresentNames) {
            past.put(pastName(name), (OnnxTensor) value(first, name));
          }
        } else {
          previous.add(step);
        }
        int[] parents =
            beams.advance(
                ((OnnxTensor) value(step, "logits")).getFloatBuffer(),
                vocabularySize(step),
                beams.length() > 0 || !search.noEmptyUtterance());
        if (beams.done()) {
          return new Decoded(beams.bestFinished(), Ending.END_TOKEN);
        }
        boolean inOrder = true;
        for (int beam = 0; beam < width; beam++) {
          next[beam] = beams.lastToken(beam);
          inOrder &= parents[beam] == beam;
        }
        for (String name : decoderPresentNames) {
          OnnxTensor present = (OnnxTensor) value(step, name);
          past.put(pastName(name), inOrder ? present : hold(previous, reordered(present, parents)));
        }
      }
    } finally {
      try {
        closeAll(previous);
      } finally {
        closeAll(held);
      }
    }
  }

  private static <T extends AutoCloseable> T hold(List<AutoCloseable> held, T resource) {
    held.add(resource);
    return resource;
  }

  private static void closeAll(List<AutoCloseable> resources) throws OrtException {
    try {
      for (AutoCloseable resource : resources) {
        resource.close();
      }
    } catch (OrtException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      resources.clear();
    }
  }

  /** {@code tensor}, of batch 1, repeated {@code times} along the batch. */
  private OnnxTensor repeated(OnnxTensor tensor, int times) throws OrtException {
    FloatBuffer one = tensor.getFloatBuffer();
    long[] shape = tensor.getInfo().getShape();
    FloatBuffer all =
        java.nio.ByteBuffer.allocateDirect(one.remaining() * times * Float.BYTES)
            .order(java.nio.ByteOrder.nativeOrder())
            .asFloatBuffer();
    for (int i = 0; i < times; i++) {
      all.put(one.duplicate());
    }
    all.flip();
    shape[0] = times;
    return OnnxTensor.createTensor(environment, all, shape);
  }

  /** {@code tensor}'s batch rows in the order {@code rows} names them. */
  private OnnxTensor reordered(OnnxTensor tensor, int[] rows) throws OrtException {
    FloatBuffer values = tensor.getFloatBuffer();
    int row = values.remaining() / rows.length;
    FloatBuffer out =
        java.nio.ByteBuffer.allocateDirect(values.remaining() * Float.BYTES)
            .order(java.nio.ByteOrder.nativeOrder())
            .asFloatBuffer();
    for (int source : rows) {
      out.put(values.slice(source * row, row));
    }
    out.flip();
    return OnnxTensor.createTensor(environment, out, tensor.getInfo().getShape());
  }

  private static int vocabularySize(OrtSession.Result step) {
    long[] shape = ((OnnxTensor) value(step, "logits")).getInfo().getShape();
    return (int) shape[shape.length - 1];
  }

  private static OnnxValue value(OrtSession.Result result, String name) {
    return result
        .get(name)
        .orElseThrow(() -> new IllegalStateException("the model gave no output " + name));
  }

  private static String past(int layer, String side, String kind) {
    return "past_key_values." + layer + "." + side + "." + kind;
  }

  private static String present(int layer, String side, String kind) {
    return "present." + layer + "." + side + "." + kind;
  }

  /** The input that takes the output {@code present}'s value at the next step. */
  private static String pastName(String present) {
    return "past_key_values" + present.substring("present".length());
  }

  @Override
  public void close() throws OrtException {
    try (encoder;
        decoder) {
      // both closed, the second even when the first fails
    }
  }
}
