package dev.bolo.server.engine.moonshine;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.util.Map;

/**
 * Silero VAD v5 (16 kHz): the probability that a window of {@value #WINDOW} samples (32 ms) is
 * speech. The model is recurrent: each window is read with the {@value #CONTEXT} samples before it
 * and the state the previous window left, as Silero's own {@code OnnxWrapper} feeds it (input
 * {@code [1, 576]}, state {@code [2, 1, 128]}, {@code sr} a scalar 16000), so a note is read
 * through one {@link Stream}.
 *
 * <p>The session is thread safe; a {@link Stream} is one note's and not.
 */
final class SileroVad implements AutoCloseable {

  /** Samples per window at 16 kHz. */
  static final int WINDOW = 512;

  /** Samples of the previous window read again before each one. */
  static final int CONTEXT = 64;

  private static final int STATE = 2 * 128;

  private final OrtEnvironment environment;
  private final OrtSession session;

  SileroVad(OrtEnvironment environment, OrtSession session) {
    this.environment = environment;
    this.session = session;
  }

  /** A note's pass through the model, from silence. */
  Stream stream() {
    return new Stream();
  }

  /** The model's state over one note. Not thread safe. */
  final class Stream {
    private final float[] input = new float[CONTEXT + WINDOW];
    private final float[] state = new float[STATE];

    private Stream() {}

    /**
     * The probability that the next window is speech.
     *
     * @param samples the window: {@value #WINDOW} samples from {@code offset}
     */
    float speech(float[] samples, int offset) throws OrtException {
      System.arraycopy(input, WINDOW, input, 0, CONTEXT);
      System.arraycopy(samples, offset, input, CONTEXT, WINDOW);
      try (OnnxTensor audio =
              OnnxTensor.createTensor(
                  environment, FloatBuffer.wrap(input), new long[] {1, CONTEXT + WINDOW});
          OnnxTensor previous =
              OnnxTensor.createTensor(
                  environment, FloatBuffer.wrap(state), new long[] {2, 1, 128});
          OnnxTensor rate = OnnxTensor.createTensor(environment, (long) MoonshineDecoder.RATE);
          OrtSession.Result result =
              session.run(Map.of("input", audio, "state", previous, "sr", rate))) {
        float[][] probability = (float[][]) result.get(0).getValue();
        ((OnnxTensor) result.get(1)).getFloatBuffer().get(state);
        return probability[0][0];
      }
    }
  }

  @Override
  public void close() throws OrtException {
    session.close();
  }
}
