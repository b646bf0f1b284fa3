package dev.bolo.server.engine.offline;

/**
 * The decoder's search settings: how many hypotheses survive each frame and how much the language
 * model counts. Narrower beams are faster and use less memory; too narrow and the right words are
 * pruned before they win.
 *
 * @param absoluteBeamWidth most tokens kept per frame (Sphinx4 {@code absoluteBeamWidth})
 * @param relativeBeamWidth tokens scoring below best times this are dropped
 * @param absoluteWordBeamWidth most word-final tokens kept per frame
 * @param relativeWordBeamWidth word-final tokens below best times this are dropped
 * @param languageWeight scale of language-model scores against acoustic scores
 * @param wordInsertionProbability penalty for starting a new word
 */
public record SearchTuning(
    int absoluteBeamWidth,
    double relativeBeamWidth,
    int absoluteWordBeamWidth,
    double relativeWordBeamWidth,
    double languageWeight,
    double wordInsertionProbability) {

  /** Sphinx4's own defaults ({@code edu/cmu/sphinx/api/default.config.xml}). */
  public static final SearchTuning STOCK = new SearchTuning(20_000, 1e-60, 200, 1e-40, 8.0, 0.1);

  /**
   * Bolo's default: chosen with {@code bolo-bench} (see its README) for a real-time factor below 1
   * at the word error rate of {@link #STOCK} on the sample notes and the LibriVox clips.
   */
  public static final SearchTuning TUNED = new SearchTuning(8_000, 1e-50, 100, 1e-35, 8.0, 0.1);

  public SearchTuning {
    if (absoluteBeamWidth < 1 || absoluteWordBeamWidth < 1) {
      throw new IllegalArgumentException(
          "beam widths must be >= 1: " + absoluteBeamWidth + ", " + absoluteWordBeamWidth);
    }
    if (!isProbability(relativeBeamWidth)
        || !isProbability(relativeWordBeamWidth)
        || !isProbability(wordInsertionProbability)) {
      throw new IllegalArgumentException(
          "relative beams and insertion probability must be in (0, 1]: "
              + relativeBeamWidth
              + ", "
              + relativeWordBeamWidth
              + ", "
              + wordInsertionProbability);
    }
    if (!(languageWeight > 0)) {
      throw new IllegalArgumentException("languageWeight must be > 0: " + languageWeight);
    }
  }

  private static boolean isProbability(double value) {
    return value > 0 && value <= 1;
  }
}
