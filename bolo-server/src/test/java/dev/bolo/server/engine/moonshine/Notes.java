package dev.bolo.server.engine.moonshine;

import dev.bolo.audio.SeekableSource;
import dev.bolo.decode.PcmDecoder;
import dev.bolo.testkit.LibriVox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Audio for the recogniser's tests: real recordings decoded as the gateway decodes them. */
final class Notes {

  static final int RATE = 16_000;

  /** The committed models, from the module's folder. */
  static final ModelFolder MODELS = new ModelFolder(Path.of("..", "models"));

  private Notes() {}

  /** A recording with what was said in it. */
  record Clip(String name, float[] samples, String reference) {}

  /**
   * Debian's pocketsphinx-testdata's LibriVox recordings ({@link LibriVox}; .ci/run installs them),
   * decoded, in the order of their transcription file.
   */
  static List<Clip> librivox() throws IOException {
    List<Clip> clips = new ArrayList<>();
    for (LibriVox.Recording recording : LibriVox.recordings()) {
      clips.add(new Clip(recording.name(), decode(recording.wav()), recording.reference()));
    }
    return clips;
  }

  /** Any file FFmpeg reads, as 16 kHz mono floats. */
  static float[] decode(Path file) throws IOException {
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(Files.readAllBytes(file)), RATE)) {
      float[] samples = new float[RATE * 10];
      int count = 0;
      int n;
      while ((n = decoder.read(samples, count, samples.length - count)) >= 0) {
        count += n;
        if (count == samples.length) {
          samples = Arrays.copyOf(samples, samples.length * 2);
        }
      }
      return Arrays.copyOf(samples, count);
    }
  }

  static float[] silence(double seconds) {
    return new float[(int) (seconds * RATE)];
  }

  /** White noise at {@code rms}, from a fixed seed. */
  static float[] whiteNoise(double seconds, double rms, long seed) {
    Random random = new Random(seed);
    float[] samples = new float[(int) (seconds * RATE)];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = (float) (random.nextGaussian() * rms);
    }
    return samples;
  }

  /** Brown (random-walk, low-pitched rumble) noise at about {@code rms}, from a fixed seed. */
  static float[] brownNoise(double seconds, double rms, long seed) {
    Random random = new Random(seed);
    float[] samples = new float[(int) (seconds * RATE)];
    double value = 0;
    for (int i = 0; i < samples.length; i++) {
      value = 0.998 * value + random.nextGaussian() * 0.06;
      samples[i] = (float) (value * rms);
    }
    return samples;
  }

  static float[] concat(float[]... parts) {
    int length = 0;
    for (float[] part : parts) {
      length += part.length;
    }
    float[] all = new float[length];
    int at = 0;
    for (float[] part : parts) {
      System.arraycopy(part, 0, all, at, part.length);
      at += part.length;
    }
    return all;
  }
}
