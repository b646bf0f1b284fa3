package dev.bolo.server.engine.moonshine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class BeamSearchTest {

  private static final int END = 2;
  private static final int VOCABULARY = 6;

  /**
   * A toy decoder: after the prefix "" it writes 3 (0.6) or 4 (0.4); after 3 anything is about as
   * likely (so "3 …" scores badly whatever follows); after 4 it writes 5 (0.9) and then ends (0.9).
   * Greedy takes 3 and wanders; a beam of two finds "4 5".
   */
  private static final Function<String, double[]> TOY =
      prefix ->
          Map.of(
                  "", new double[] {0, 0, 0.0001, 0.6, 0.4, 0},
                  "3", new double[] {0.2, 0, 0.2, 0.2, 0.2, 0.2},
                  "4", new double[] {0.05, 0, 0.05, 0, 0, 0.9},
                  "45", new double[] {0.05, 0, 0.9, 0.05, 0, 0})
              .getOrDefault(prefix, new double[] {0.2, 0, 0.2, 0.2, 0.2, 0.2});

  private static int[] search(
      int width, boolean endAllowedFirst, Function<String, double[]> model) {
    BeamSearch beams = new BeamSearch(width, 1, END);
    String[] prefixes = new String[width];
    Arrays.fill(prefixes, "");
    for (int step = 0; step < 6; step++) {
      float[] logits = new float[width * VOCABULARY];
      for (int beam = 0; beam < width; beam++) {
        double[] p = model.apply(prefixes[beam]);
        for (int token = 0; token < VOCABULARY; token++) {
          logits[beam * VOCABULARY + token] = (float) Math.log(p[token]);
        }
      }
      beams.advance(FloatBuffer.wrap(logits), VOCABULARY, step > 0 || endAllowedFirst);
      if (beams.done()) {
        return beams.bestFinished();
      }
      for (int beam = 0; beam < width; beam++) {
        prefixes[beam] = text(beams.running(beam));
      }
    }
    return beams.best();
  }

  private static String text(int[] tokens) {
    StringBuilder s = new StringBuilder();
    for (int token : tokens) {
      s.append(token);
    }
    return s.toString();
  }

  @Test
  void aWidthOfOneIsGreedy() {
    assertThat(search(1, true, TOY)).startsWith(3);
  }

  @Test
  void aWiderBeamFindsTheLikelierSentenceThatStartsWithALessLikelyToken() {
    assertThat(search(2, true, TOY)).containsExactly(4, 5);
    assertThat(search(4, true, TOY)).containsExactly(4, 5);
  }

  @Test
  void theEndTokenFirstGivesNothingUnlessItIsForbiddenThere() {
    Function<String, double[]> silentFirst =
        prefix ->
            prefix.isEmpty()
                ? new double[] {0, 0, 0.9, 0.1, 0, 0}
                : prefix.equals("3")
                    ? new double[] {0, 0, 0.9, 0.1, 0, 0}
                    : new double[] {0.2, 0, 0.2, 0.2, 0.2, 0.2};
    assertThat(search(1, true, silentFirst)).isEmpty();
    assertThat(search(1, false, silentFirst)).containsExactly(3);
    assertThat(search(3, false, silentFirst)).containsExactly(3);
  }
}
