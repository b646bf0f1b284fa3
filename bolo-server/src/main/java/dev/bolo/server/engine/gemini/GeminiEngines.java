package dev.bolo.server.engine.gemini;

import dev.bolo.server.engine.SpeechEngine;

/** Creates the Gemini engine. */
public final class GeminiEngines {

  private GeminiEngines() {}

  /**
   * An engine named {@code gemini} that transcribes through {@code generateContent}. It is safe for
   * concurrent use and holds no resources of its own: closing it leaves the shared HTTP client
   * open.
   */
  public static SpeechEngine create(GeminiConfig config) {
    return new GenerateContentEngine(config, System::nanoTime, Sleeper.THREAD);
  }
}
