package dev.bolo.server.engine.gemini;

import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.time.Sleeper;
import java.util.function.LongSupplier;

/** Creates the Gemini engine. */
public final class GeminiEngines {

  private GeminiEngines() {}

  /**
   * An engine named {@code gemini} that transcribes through {@code generateContent}, its calls'
   * deadlines on {@code ticker} (elapsed nanoseconds), its waits for an uploaded file through
   * {@code sleeper}. It is safe for concurrent use and holds no resources of its own: closing it
   * leaves the shared HTTP client open.
   */
  public static SpeechEngine create(GeminiConfig config, LongSupplier ticker, Sleeper sleeper) {
    return new GenerateContentEngine(config, ticker, sleeper);
  }
}
