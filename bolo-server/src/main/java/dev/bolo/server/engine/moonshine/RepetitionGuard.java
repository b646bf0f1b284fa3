package dev.bolo.server.engine.moonshine;

/**
 * Tells a decoder that is looping from one that is repeating what was said. A transformer decoder
 * run greedily can fall into a cycle, writing the same few tokens until its token bound; speech
 * repeats itself too ("no, no, no", "I know I know I know"), but briefly. A loop here is the last
 * {@code n} tokens (1 ≤ n ≤ {@value #LONGEST_NGRAM}) written at least {@value #LEAST_REPEATS} times
 * in a row and covering at least {@value #LEAST_LOOPED_TOKENS} tokens together: a single token 16
 * times, two tokens 8 times, three 6 times, four or five 4 times, six or more 3 times.
 *
 * <p>Stateless and thread safe.
 */
final class RepetitionGuard {

  /** The longest repeated phrase looked for, in tokens: about six words. */
  static final int LONGEST_NGRAM = 8 * 4;

  /** A phrase said twice in a row is common; three times, of six tokens or more, is a loop. */
  static final int LEAST_REPEATS = 3;

  /** Short repeats must go on longer before they count: 16 tokens is about 3 s of speech. */
  static final int LEAST_LOOPED_TOKENS = 16;

  private RepetitionGuard() {}

  /**
   * Where to cut {@code tokens[0..length)} when its end is a loop: just after the first time the
   * looping phrase was written, so the text keeps it once. Otherwise -1.
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
