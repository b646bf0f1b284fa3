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

  /** The outputs asked for after the first step: the encoder's cache does not change. */
  private final Set<String> cachedStepOutputs;

  MoonshineDecoder(OrtEnvironment environment, OrtSession encoder, OrtSession decoder) {
    this.environment = environment;
    this.encoder = encoder;
    this.decoder = decoder;
    Set<String> outputs = new LinkedHashSet<>();
    outputs.add("logits");
    for (int layer = 0; layer < LAYERS; layer++) {
      outputs.add(present(layer, "decoder", "key"));
      outputs.add(present(layer, "decoder", "value"));
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
    int[] tokens = new int[bound];
    int written = 0;
    List<OrtSession.Result> held = new ArrayList<>();
    try (OnnxTensor audio =
            OnnxTensor.createTensor(
                environment, FloatBuffer.wrap(samples), new long[] {1, samples.length});
        OrtSession.Result encoded = encoder.run(Map.of("input_values", audio));
        OnnxTensor empty =
            OnnxTensor.createTensor(
                environment, FloatBuffer.allocate(0), new long[] {1, KV_HEADS, 0, HEAD_DIM});
        OnnxTensor noCache = OnnxTensor.createTensor(environment, new boolean[] {false});
        OnnxTensor withCache = OnnxTensor.createTensor(environment, new boolean[] {true})) {
      OnnxValue hidden = value(encoded, "last_hidden_state");
      long next = START_TOKEN;
      OrtSession.Result first = null;
      OrtSession.Result last = null;
      while (true) {
        if (stop.getAsBoolean()) {
          return new Decoded(copy(tokens, written), Ending.STOPPED);
        }
        if (written == bound) {
          // Speech ends within the bound; a decoder that ran into it looping is cut to one copy.
          int cut = RepetitionGuard.cutAt(tokens, written);
          return cut < 0
              ? new Decoded(copy(tokens, written), Ending.TOKEN_BOUND)
              : new Decoded(copy(tokens, cut), Ending.LOOP_CUT);
        }
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try (OnnxTensor ids =
            OnnxTensor.createTensor(
                environment, LongBuffer.wrap(new long[] {next}), new long[] {1, 1})) {
          inputs.put("input_ids", ids);
          inputs.put("encoder_hidden_states", (OnnxTensor) hidden);
          inputs.put("use_cache_branch", first == null ? noCache : withCache);
          for (int layer = 0; layer < LAYERS; layer++) {
            for (String kind : List.of("key", "value")) {
              inputs.put(
                  past(layer, "decoder", kind),
                  cached(last, present(layer, "decoder", kind), empty));
              inputs.put(
                  past(layer, "encoder", kind),
                  cached(first, present(layer, "encoder", kind), empty));
            }
          }
          OrtSession.Result step =
              first == null ? decoder.run(inputs) : decoder.run(inputs, cachedStepOutputs);
          held.add(step);
          // The first step's result holds the encoder's cache for the whole utterance; any other
          // is needed only until the next step has read its decoder cache.
          if (last != null && last != first) {
            held.remove(last);
            last.close();
          }
          if (first == null) {
            first = step;
          }
          last = step;
        }
        int token = likeliest((OnnxTensor) value(last, "logits"));
        if (token == END_TOKEN) {
          return new Decoded(copy(tokens, written), Ending.END_TOKEN);
        }
        tokens[written++] = token;
        next = token;
      }
    } finally {
      for (OrtSession.Result result : held) {
        result.close();
      }
    }
  }

  private static OnnxTensor cached(
      OrtSession.@org.jspecify.annotations.Nullable Result result, String name, OnnxTensor empty) {
    return result == null ? empty : (OnnxTensor) value(result, name);
  }

  private static OnnxValue value(OrtSession.Result result, String name) {
    return result
        .get(name)
        .orElseThrow(() -> new IllegalStateException("the model gave no output " + name));
  }

  /** The id with the highest logit at the last position. */
  private static int likeliest(OnnxTensor logits) {
    FloatBuffer values = logits.getFloatBuffer();
    long[] shape = logits.getInfo().getShape();
    int vocabulary = (int) shape[shape.length - 1];
    int offset = values.limit() - vocabulary;
    int best = 0;
    float bestValue = Float.NEGATIVE_INFINITY;
    for (int i = 0; i < vocabulary; i++) {
      float value = values.get(offset + i);
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    return best;
  }

  private static int[] copy(int[] tokens, int length) {
    return java.util.Arrays.copyOf(tokens, length);
  }

  private static String past(int layer, String side, String kind) {
    return "past_key_values." + layer + "." + side + "." + kind;
  }

  private static String present(int layer, String side, String kind) {
    return "present." + layer + "." + side + "." + kind;
  }

  @Override
  public void close() throws OrtException {
    try (encoder;
        decoder) {
      // both closed, the second even when the first fails
    }
  }
}
