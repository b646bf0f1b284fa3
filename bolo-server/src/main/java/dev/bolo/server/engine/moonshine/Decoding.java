package dev.bolo.server.engine.moonshine;

/**
 * How the decoder chooses its tokens.
 *
 * @param beamWidth hypotheses kept at once (a beam search, {@link BeamSearch}); 1 is greedy
 * @param lengthPenalty the power of a finished hypothesis's length its score is divided by (1: the
 *     mean log-probability per token)
 * @param noEmptyUtterance whether the end token is forbidden as the first token: the detector heard
 *     speech in the utterance, and a decoder that writes nothing for it has misheard (Whisper's
 *     decoder forbids it there likewise)
 */
public record Decoding(int beamWidth, double lengthPenalty, boolean noEmptyUtterance) {

  public Decoding {
    if (beamWidth < 1 || beamWidth > 8) {
      throw new IllegalArgumentException("beamWidth must be 1 to 8: " + beamWidth);
    }
    if (!(lengthPenalty >= 0 && lengthPenalty <= 2)) {
      throw new IllegalArgumentException("lengthPenalty must be 0 to 2: " + lengthPenalty);
    }
  }

  /** Greedy, as Moonshine's own code decodes. */
  public static Decoding greedy() {
    return new Decoding(1, 1, false);
  }

  /**
   * What the gateway runs: a beam of four, scored per token, never empty. On the project's tuning
   * notes (bolo-bench/accuracy/sentences-tuning.txt) greedy decoding misheard 29.4 % of the words
   * (30.6 % letting it write nothing), beams of 2, 3, 4 and 6 25.6, 23.2, 22.2 and 22.1 %, for
   * about 1.7 times greedy's CPU time at four.
   */
  public static Decoding defaults() {
    return new Decoding(4, 1, true);
  }
}
