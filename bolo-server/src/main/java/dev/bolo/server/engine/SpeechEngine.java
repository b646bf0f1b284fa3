package dev.bolo.server.engine;

import dev.bolo.server.health.Readiness;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Turns a note into text. Implementations must be safe for concurrent calls from many threads and
 * must never throw for an outcome a provider can produce: those are {@link EngineResult}s.
 * Exceptions are for bugs only.
 */
public interface SpeechEngine extends AutoCloseable {

  /**
   * The engine's name in settings and responses: {@code offline}, {@code openai}, {@code gemini}.
   */
  String name();

  /** The model used when the client names none; part of every work key. */
  String defaultModel();

  /**
   * Whether the engine can answer {@link Task#TRANSLATE} (speech in any language into English
   * text); a translation asked of an engine that cannot is refused before any work.
   */
  default boolean canTranslate() {
    return false;
  }

  /**
   * Where {@code model}'s weights come from when the gateway runs the model itself (a package and
   * its version, named in {@code /v1/models}); empty for a provider's model.
   */
  default String source(String model) {
    return "";
  }

  /**
   * Whether {@code model} times each word ({@code verbose_json}'s {@code words}); word timestamps
   * asked of one that cannot are refused before any work, not faked. Providers that time words when
   * asked keep the default.
   */
  default boolean timesWords(String model) {
    return true;
  }

  /**
   * The languages the engine recognises, as ISO-639-1 codes, when it recognises only some; empty
   * when it takes whatever its provider takes. A note asked in another language is refused before
   * any work.
   */
  default java.util.List<String> languages() {
    return java.util.List.of();
  }

  /**
   * The most one request to the provider may carry for {@code model}, from the provider's
   * documentation or the operator's replacements for it; a note beyond it is sent in pieces.
   * Engines that take any note whole keep the default, {@link EngineLimits#NONE}.
   */
  default EngineLimits limits(String model) {
    return EngineLimits.NONE;
  }

  /**
   * The longest note {@code model} takes at all; a longer one is refused before any work. Engines
   * that take a note of any length (in pieces when it is beyond {@link #limits}) keep the default,
   * {@link LongestNote#NONE}.
   */
  default LongestNote longestNote(String model) {
    return LongestNote.NONE;
  }

  /**
   * The richest answer {@code model} gives: {@link ResponseFormat#VERBOSE_JSON} when it times its
   * segments, and then every format is rendered from that one answer in the gateway; {@link
   * ResponseFormat#JSON} (the default) when it gives text only.
   */
  default ResponseFormat richestFormat(String model) {
    return ResponseFormat.JSON;
  }

  /**
   * Transcribes (or translates, see {@link Settings#task()}) one note, blocking the calling
   * (virtual) thread until an outcome is known.
   */
  EngineResult transcribe(EngineRequest request);

  /** Whether the engine can take work now. */
  default Readiness readiness() {
    return Readiness.ok();
  }

  /**
   * Registers the engine's own gauges (a local engine's pool, for instance); called once by the
   * composition root. Engines that call a provider have none beyond the gateway's.
   */
  default void bindMetrics(MeterRegistry registry) {}

  /** Releases threads, models and connections. */
  @Override
  default void close() {}
}
