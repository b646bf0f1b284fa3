package dev.bolo.server.engine;

/**
 * Receives a transcript's text piece by piece while an engine that streams produces it. The pieces
 * concatenated are a prefix of the final text; the final text itself comes in the {@link
 * EngineResult}. Implementations must not block: they are called on the thread that reads the
 * provider's stream.
 */
@FunctionalInterface
public interface TranscriptDeltas {

  /** Takes the next piece of text. */
  void accept(String delta);

  /** Discards every piece: for callers that only want the final text. */
  static TranscriptDeltas none() {
    return Ignored.INSTANCE;
  }

  /** The one sink that discards; an enum singleton, so {@code none()} can be recognised. */
  enum Ignored implements TranscriptDeltas {
    INSTANCE;

    @Override
    public void accept(String delta) {}
  }
}
