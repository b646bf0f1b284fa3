package dev.bolo.server.engine.moonshine;

/**
 * Tells a decoder that was looping from one that repeated what was said. A transformer decoder run
 * greedily can fall into a cycle, writing the same few tokens until its bound of tokens per second
 * of audio; people repeat themselves too ("no, no, no", a sentence said five times over), but then
 * the model ends with the audio, within the bound. So this is asked only of a decoder that ran into
 * its bound: a loop is the last {@code n} tokens (1 ≤ n ≤ {@value #LONGEST_NGRAM}) written at least
 * {@value #LEAST_REPEATS} times in a row and covering at least {@value #LEAST_LOOPED_TOKENS} tokens
 * together: a single token 16 times, two tokens 8 times, three 6 times, four or five 4 times, six
 * or more 3 times. (Stopping earlier would save at most the bound's tokens, and cut a sentence said
 * five times over to one.)
 *
 * <p>Stateless and thread safe.
 */
final class RepetitionGuard {

  /** The longest repeated phrase looked for, in tokens: about six words. */
  static final int LONGEST_NGRAM = 32;

  /** A phrase said twice in a row is common. */
  static final int LEAST_REPEATS = 3;

  /** About 3 s of speech going round in circles. */
  static final int LEAST_LOOPED_TOKENS = 16;

  private RepetitionGuard() {}

  /**
   * Where to cut {@code tokens[0..length)}, written by a decoder that reached its bound, when its
   * end is a loop: just after the first time the looping phrase was written, so the text keeps it
   * once. Otherwise -1.
   */
  static int cutAt(int[] tokens, int length) {
    for (int n = 1; n <= LONGEST_NGRAM && n * LEAST_REPEATS <= length; n++) {
      int repeats = trailingRepeats(tokens, length, n);
      if (repeats >= LEAST_REPEATS && repeats * n >= LEAST_LOOPED_TOKENS) {
        return length - (repeats - 1) * n;
      }
    }
    return -1;
  }

  /** How many times in a row the last {@code n} tokens occur at the end. */
  private static int trailingRepeats(int[] tokens, int length, int n) {
    int repeats = 1;
    for (int start = length - 2 * n; start >= 0; start -= n) {
      for (int i = 0; i < n; i++) {
        if (tokens[start + i] != tokens[length - n + i]) {
          return repeats;
        }
      }
      repeats++;
    }
    return repeats;
  }
}
