package dev.bolo.server.engine.moonshine;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The bookkeeping of a beam search over the decoder's tokens, as Hugging Face's {@code
 * BeamSearchScorer} keeps it: {@code width} hypotheses grow a token at a time, each scored by the
 * sum of its tokens' log-probabilities; of all their extensions the best {@code width} that do not
 * end go on, and an extension by the end token within the best {@code width} is a finished
 * hypothesis, ranked by its score over its length to the power {@code lengthPenalty} (1: the mean
 * log-probability per token, so that long sentences are not beaten by short ones). The search is
 * done when {@code width} hypotheses have finished and no running one could rank above the worst of
 * them. A width of 1 is greedy decoding.
 *
 * <p>Beam 0 is the only one alive at the start (all beams start from the same token). No model
 * here: {@link MoonshineDecoder} runs it. Not thread safe: one utterance's.
 */
final class BeamSearch {

  /** A finished hypothesis: its tokens, without the end token, and its normalised score. */
  record Hypothesis(int[] tokens, double score) {}

  private final int width;
  private final double lengthPenalty;
  private final int endToken;
  private final List<Hypothesis> finished = new ArrayList<>();

  private int[][] tokens;
  private double[] scores;
  private int length;

  BeamSearch(int width, double lengthPenalty, int endToken) {
    if (width < 1) {
      throw new IllegalArgumentException("width must be >= 1: " + width);
    }
    this.width = width;
    this.lengthPenalty = lengthPenalty;
    this.endToken = endToken;
    this.tokens = new int[width][0];
    this.scores = new double[width];
    Arrays.fill(scores, 1, width, Double.NEGATIVE_INFINITY);
  }

  private record Candidate(int beam, int token, double score) {}

  /**
   * Extends the beams by one token.
   *
   * @param logits the decoder's last-position logits of every beam, {@code vocabulary} floats per
   *     beam, beam after beam, ending at the buffer's limit
   * @param endAllowed false forbids the end token at this step (the first: an utterance the
   *     detector heard as speech is not empty)
   * @return for each new beam, the beam it extends: the order its key/value cache must take
   */
  int[] advance(FloatBuffer logits, int vocabulary, boolean endAllowed) {
    int offset = logits.limit() - width * vocabulary;
    List<Candidate> candidates = new ArrayList<>();
    float[] row = new float[vocabulary];
    for (int beam = 0; beam < width; beam++) {
      if (scores[beam] == Double.NEGATIVE_INFINITY) {
        continue;
      }
      logits.get(offset + beam * vocabulary, row);
      if (!endAllowed) {
        row[endToken] = Float.NEGATIVE_INFINITY;
      }
      double normaliser = logSumExp(row);
      for (int token : best(row, 2 * width)) {
        candidates.add(new Candidate(beam, token, scores[beam] + row[token] - normaliser));
      }
    }
    candidates.sort(Comparator.comparingDouble(Candidate::score).reversed());
    int[][] nextTokens = new int[width][];
    double[] nextScores = new double[width];
    int[] parents = new int[width];
    int chosen = 0;
    for (int rank = 0; rank < candidates.size() && chosen < width; rank++) {
      Candidate c = candidates.get(rank);
      if (c.token() == endToken) {
        if (rank < width) {
          finish(tokens[c.beam()], c.score());
        }
        continue;
      }
      int[] extended = Arrays.copyOf(tokens[c.beam()], length + 1);
      extended[length] = c.token();
      nextTokens[chosen] = extended;
      nextScores[chosen] = c.score();
      parents[chosen] = c.beam();
      chosen++;
    }
    // Fewer candidates than beams only when the vocabulary is smaller than the width.
    for (; chosen < width; chosen++) {
      nextTokens[chosen] = nextTokens[0];
      nextScores[chosen] = Double.NEGATIVE_INFINITY;
      parents[chosen] = parents[0];
    }
    tokens = nextTokens;
    scores = nextScores;
    length++;
    return parents;
  }

  /** The token each beam ends with now. */
  int lastToken(int beam) {
    return tokens[beam][length - 1];
  }

  /** Tokens written by each running beam. */
  int length() {
    return length;
  }

  /** Whether enough hypotheses finished that no running beam can do better. */
  boolean done() {
    if (finished.size() < width) {
      return false;
    }
    double worst = finished.get(finished.size() - 1).score();
    return normalised(scores[0], length + 1) <= worst;
  }

  /** The best hypothesis, those finished and the running ones as if they ended now. */
  int[] best() {
    double running = normalised(scores[0], length + 1);
    return finished.isEmpty() || running > finished.get(0).score()
        ? tokens[0]
        : finished.get(0).tokens();
  }

  /** The best finished hypothesis; empty when none has finished. */
  int[] bestFinished() {
    return finished.isEmpty() ? new int[0] : finished.get(0).tokens();
  }

  /** The best running beam's tokens. */
  int[] bestRunning() {
    return tokens[0];
  }

  /** A running beam's tokens. */
  int[] running(int beam) {
    return tokens[beam];
  }

  private void finish(int[] hypothesis, double score) {
    double normalised = normalised(score, hypothesis.length + 1);
    if (finished.size() == width && normalised <= finished.get(width - 1).score()) {
      return;
    }
    finished.add(new Hypothesis(hypothesis, normalised));
    finished.sort(Comparator.comparingDouble(Hypothesis::score).reversed());
    if (finished.size() > width) {
      finished.remove(width);
    }
  }

  private double normalised(double score, int tokens) {
    return score / Math.pow(tokens, lengthPenalty);
  }

  private static double logSumExp(float[] row) {
    float max = Float.NEGATIVE_INFINITY;
    for (float value : row) {
      max = Math.max(max, value);
    }
    double sum = 0;
    for (float value : row) {
      sum += Math.exp(value - max);
    }
    return max + Math.log(sum);
  }

  /** The ids of the {@code count} highest values, highest first. */
  private static int[] best(float[] row, int count) {
    int[] ids = new int[count];
    float[] values = new float[count];
    Arrays.fill(values, Float.NEGATIVE_INFINITY);
    Arrays.fill(ids, -1);
    for (int i = 0; i < row.length; i++) {
      float value = row[i];
      if (value <= values[count - 1]) {
        continue;
      }
      int at = count - 1;
      while (at > 0 && values[at - 1] < value) {
        values[at] = values[at - 1];
        ids[at] = ids[at - 1];
        at--;
      }
      values[at] = value;
      ids[at] = i;
    }
    int found = 0;
    while (found < count && ids[found] >= 0 && values[found] > Float.NEGATIVE_INFINITY) {
      found++;
    }
    return Arrays.copyOf(ids, found);
  }
}
