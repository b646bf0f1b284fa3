package dev.bolo.server.engine;

import java.util.List;
import java.util.Locale;

/**
 * What an engine speaks: the one list of engine kinds, for {@code BOLO_ENGINE} and for each engine
 * of {@code BOLO_ENGINES} ({@code BOLO_ENGINE_<NAME>_KIND}).
 */
public enum EngineKind {
  /** The offline engine in the gateway's own process. */
  OFFLINE,
  /** OpenAI's {@code /audio/transcriptions}, or a server of the same shape. */
  OPENAI,
  /** Google's Gemini. */
  GEMINI,
  /** Azure OpenAI: OpenAI's shape behind Azure's deployments and {@code api-key}. */
  AZURE,
  /** Deepgram's pre-recorded API. */
  DEEPGRAM;

  /**
   * The kinds {@code BOLO_ENGINE} may name alone, configured by variables of their own (OpenAI's
   * and Gemini's base URL, key and models); the others are configured only as an engine of {@code
   * BOLO_ENGINES}.
   */
  public static final List<EngineKind> ALONE = List.of(OFFLINE, OPENAI, GEMINI);

  /** The name in {@code BOLO_ENGINE}, {@code BOLO_ENGINE_<NAME>_KIND}, settings and responses. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
